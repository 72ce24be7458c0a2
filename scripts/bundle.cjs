// Bundles service entries (and the workspace TypeScript they import) into CommonJS files that Node runs
// without a TypeScript loader: tsx costs a process about 30 MB of resident memory for good, and every
// service process would pay it. Third-party packages stay outside, loaded from node_modules, and so do the
// client packages (clients/*, e.g. @verdict/mcp), which are built to plain JavaScript first. Used by
// `npm start` (the embedded process), `npm run start:distributed` and the benches that start services.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { clientPackages, ensureClientsBuilt } = require('./clients.cjs');
const { root } = require('./lib.cjs');

const defaultOutdir = path.join(root, 'node_modules', '.cache', 'verdict');

/** Every third-party package a workspace depends on: left outside the bundle, loaded from node_modules. */
function thirdPartyPackages() {
  const names = new Set();
  const dirs = [
    'contracts',
    'platform',
    ...fs.readdirSync(path.join(root, 'services')).map((s) => `services/${s}`),
  ];
  for (const dir of dirs) {
    const file = path.join(root, dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const name of Object.keys(manifest.dependencies ?? {}))
      if (!name.startsWith('@verdict/')) names.add(name);
  }
  for (const dir of clientPackages())
    names.add(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name);
  return [...names];
}

/**
 * Bundles each entry (`{ name: 'services/x/src/main.ts' }`) in one esbuild run, in well under a second;
 * resolves with the path of each bundle by name. The container image writes its bundles elsewhere (`outdir`).
 */
async function bundleEntries(entries, options = {}) {
  const outdir = options.outdir ?? defaultOutdir;
  // The services load the client packages they use from their dist/, built when stale.
  const built = await ensureClientsBuilt();
  if (built !== 0) throw new Error(`building the client packages failed (exit code ${built})`);
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
