# Verdict in one image: every service, the command picks the one a container runs (docs/deploy.md).
#   docker build -t verdict .
#   docker run -p 8080:8080 -v verdict-data:/data verdict                 # embedded, everything in one
#   docker run … verdict gateway | test-results | manual-testing | webhooks | analytics
# NODE_IMAGE is any Node 22 image on Debian with npm and a `node` user (uid 1000), as the official one.
ARG NODE_IMAGE=node:22-bookworm-slim

# The manifests alone, so that the dependency layers below are rebuilt only when one of them changes.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY package.json package-lock.json ./
COPY contracts/package.json contracts/
COPY platform/package.json platform/
COPY services/analytics/package.json services/analytics/
COPY services/embedded/package.json services/embedded/
COPY services/gateway/package.json services/gateway/
COPY services/manual-testing/package.json services/manual-testing/
COPY services/test-results/package.json services/test-results/
COPY services/webhooks/package.json services/webhooks/
COPY e2e/package.json e2e/
COPY bench/package.json bench/

# Every dependency, to bundle the workspace's TypeScript with esbuild. No install scripts: none of the
# runtime's packages needs one, and the `node` devDependency's would download a second Node.
FROM manifests AS build
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY contracts contracts
COPY platform platform
COPY services services
COPY scripts scripts
RUN node scripts/bundle-image.cjs /src/dist

# Production dependencies only: the bundles load third-party packages from node_modules.
FROM manifests AS deps
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/@verdict node_modules/.package-lock.json

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=8080 \
    VERDICT_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY infra/docker/verdict /usr/local/bin/verdict
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
# Ready, not just alive: /readyz answers 200 once the process's database, bus and stores answer.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["verdict"]
CMD ["embedded"]
