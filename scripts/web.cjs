// Builds the web app (web/, Vite) into web/dist when what it is built from has changed: its own source and
// configuration, and the client package it calls the API through. The gateway serves web/dist at `/`, so
// `npm start`, `npm run start:distributed` and `npm test` (whose browser tests open it) build it first when
// it is missing or stale; dist/ is a build output, never committed. Plain CommonJS: run.cjs loads it early.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { root, log, run } = require('./lib.cjs');

const webDir = path.join(root, 'web');
const distDir = path.join(webDir, 'dist');
const stampFile = path.join(root, 'node_modules', '.verdict-web-stamp');
// Tests (unit, component and browser) and their helpers are not what the app is built from.
const SKIPPED = new Set(['node_modules', 'dist', 'tests', 'test-results', 'testing', 'vitest.config.ts']);

function filesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      if (SKIPPED.has(entry.name) || /\.test\.tsx?$/.test(entry.name)) return [];
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(full) : [full];
    });
}

function inputsDigest() {
  const hash = crypto.createHash('sha256');
  const files = [
    path.join(root, 'package-lock.json'),
    ...filesUnder(webDir),
    ...filesUnder(path.join(root, 'clients', 'client', 'dist')),
  ];
  for (const file of files) hash.update(path.relative(root, file)).update(fs.readFileSync(file));
  return hash.digest('hex');
}

/**
 * Builds web/dist unless it is fresh; resolves with 0 or the build's exit code. The client package must be
 * built before (ensureClientsBuilt): the app imports its dist/.
 */
async function ensureWebBuilt({ force = false } = {}) {
  if (!fs.existsSync(path.join(webDir, 'package.json'))) return 0;
  const digest = inputsDigest();
  const current = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8') : '';
  if (!force && current === digest && fs.existsSync(path.join(distDir, 'index.html'))) return 0;
  log('building the web app (web/dist)…');
  const started = Date.now();
  const code = await run(
    'npm',
    ['run', 'build', '--silent', '--workspace', 'web', '--', '--logLevel', 'warn'],
    {
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  if (code !== 0) return code;
  fs.writeFileSync(stampFile, digest);
  log(`web app built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

module.exports = { ensureWebBuilt, webDistDir: distDir };
