# Verdict in one image: every service, the command picks the one a container runs (docs/deploy.md).
#   docker build -t verdict .
#   docker run -p 8080:8080 -v verdict-data:/data verdict                 # embedded, everything in one
#   docker run … verdict gateway | test-results | manual-testing | webhooks | analytics
# NODE_IMAGE is any Node 22 image on Debian with npm and a `node` user (uid 1000), as the official one.
ARG NODE_IMAGE=node:22-bookworm-slim

# Every workspace's manifest and nothing else (whatever workspaces there are), so that the dependency
# layers below are rebuilt only when a manifest or the lock file changes: COPY --from is cached by content.
FROM ${NODE_IMAGE} AS context
WORKDIR /src
COPY . .
RUN find . -type f ! -name package.json ! -name package-lock.json -delete \
 && find . -depth -type d -empty -delete

FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY --from=context /src ./

# Every dependency, to bundle the workspace's TypeScript with esbuild. No install scripts: none of the
# runtime's packages needs one, and the `node` devDependency's would download a second Node.
FROM manifests AS build
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY contracts contracts
COPY platform platform
COPY services services
COPY clients clients
COPY scripts scripts
# The client package first: the gateway bundles the MCP server, which takes the case value sets from the
# client's module generated from the OpenAPI document at build time.
RUN npm run build --workspace clients/client
RUN node scripts/bundle-image.cjs /src/dist
# The web app (docs/web.md): static files the gateway serves at /, built against the client package.
COPY web web
RUN npm run build --workspace web

# Production dependencies only: the bundles load third-party packages from node_modules.
FROM manifests AS deps
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/@verdict node_modules/.package-lock.json

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=8080 \
    VERDICT_DATA_DIR=/data \
    VERDICT_WEB_DIR=/app/web
WORKDIR /app
COPY --from=deps /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY --from=build /src/web/dist web
COPY infra/docker/verdict /usr/local/bin/verdict
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
# Ready, not just alive: /readyz answers 200 once the process's database, bus and stores answer.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["verdict"]
CMD ["embedded"]
