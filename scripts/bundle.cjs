// Bundles service entries (and the workspace TypeScript they import) into CommonJS files that Node runs
// without a TypeScript loader: tsx costs a process about 30 MB of resident memory for good, and every
// service process would pay it. Third-party packages stay outside, loaded from node_modules. The client
// packages a service uses (clients/*, e.g. @verdict/mcp in the gateway) are bundled from their TypeScript
// like the rest of the workspace; their own third-party dependencies stay outside too. Used by `npm start`
// (the embedded process), `npm run start:distributed`, the container image and the benches.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { clientPackages } = require('./clients.cjs');
const { root } = require('./lib.cjs');

const defaultOutdir = path.join(root, 'node_modules', '.cache', 'verdict');

/** Every third-party package a workspace depends on: left outside the bundle, loaded from node_modules. */
function thirdPartyPackages() {
  const names = new Set();
  const dirs = [
    'contracts',
    'platform',
    ...fs.readdirSync(path.join(root, 'services')).map((s) => `services/${s}`),
    ...clientPackages().map((dir) => path.relative(root, dir)),
  ];
  for (const dir of dirs) {
    const file = path.join(root, dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const name of Object.keys(manifest.dependencies ?? {}))
      if (!name.startsWith('@verdict/')) names.add(name);
  }
  return [...names];
}

/**
 * Resolves each client package (`@verdict/mcp`) to its TypeScript entry, like the workspace's own packages,
 * rather than to its dist/ (built for npm, and stale or missing until `npm run build:clients`). The one
 * runtime file a client's build generates, `src/generated/version.ts`, is made here from its package.json;
 * its other generated files are types, which bundling drops.
 */
function clientSources() {
  const packages = clientPackages().map((dir) => ({
    dir,
    entry: path.join(dir, 'src', 'index.ts'),
    ...JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')),
  }));
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const ownerOf = (file) => packages.find((pkg) => file.startsWith(`${pkg.dir}${path.sep}`));
  return {
    name: 'verdict-client-sources',
    setup(build) {
      build.onResolve({ filter: /^@verdict\/[^/]+$/ }, (args) =>
        byName.has(args.path) ? { path: byName.get(args.path).entry } : undefined,
      );
      build.onResolve({ filter: /\/generated\/version$/ }, (args) => {
        const owner = ownerOf(args.importer);
        return owner
          ? { path: owner.name, namespace: 'client-version', pluginData: owner.version }
          : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'client-version' }, (args) => ({
        contents: `export const VERSION = ${JSON.stringify(args.pluginData)};`,
        loader: 'ts',
      }));
    },
  };
}

/**
 * Bundles each entry (`{ name: 'services/x/src/main.ts' }`) in one esbuild run, in well under a second;
 * resolves with the path of each bundle by name. The container image writes its bundles elsewhere (`outdir`).
 */
async function bundleEntries(entries, options = {}) {
  const outdir = options.outdir ?? defaultOutdir;
  const esbuild = require(path.join(root, 'node_modules', 'esbuild'));
  const entryPoints = Object.fromEntries(
    Object.entries(entries).map(([name, entry]) => [name, path.join(root, entry)]),
  );
  const { outputFiles } = await esbuild.build({
    entryPoints,
    outdir,
    write: false,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    sourcemap: true,
    external: thirdPartyPackages(),
    plugins: [clientSources()],
    logLevel: 'warning',
  });
  // esbuild keeps a helper process alive until told otherwise; a launcher must not carry it along.
  await esbuild.stop();
  // Written aside and renamed: a process starting from a bundle another launcher is rewriting (two starts
  // at once) reads the old file or the new one, never half of one.
  fs.mkdirSync(outdir, { recursive: true });
  for (const file of outputFiles) {
    const aside = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(aside, file.contents);
    fs.renameSync(aside, file.path);
  }
  return Object.fromEntries(Object.keys(entries).map((name) => [name, path.join(outdir, `${name}.cjs`)]));
}

/**
 * What the service processes run with: the source maps of their bundle, and fewer malloc arenas (glibc's
 * default of 8 per core kept memory that Node's allocations had given back).
 */
const SERVICE_NODE_FLAGS = ['--enable-source-maps'];
const SERVICE_ENV = { MALLOC_ARENA_MAX: '2' };

module.exports = { bundleEntries, SERVICE_NODE_FLAGS, SERVICE_ENV };
