// Builds the publishable client packages (clients/*) when what they are built from has changed: their own
// source and build scripts, and the contracts, platform and gateway code their OpenAPI types are generated
// from. The types are build outputs, never committed, so a fresh clone builds them before the first
// type-check or test. Plain CommonJS: run.cjs loads it before anything else.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { root, log, run } = require('./lib.cjs');

const clientsDir = path.join(root, 'clients');
const stampFile = path.join(root, 'node_modules', '.verdict-clients-stamp');
/** What the generated types are made of, besides each client's own folder. */
const SOURCES = ['contracts/src', 'platform/src', 'services/gateway/src'];
const SKIPPED = new Set(['node_modules', 'dist', 'generated']);
/** Build outputs besides dist/ that a package's build makes (the client's types from the OpenAPI document). */
const GENERATED = { '@verdict/client': ['src/generated'] };

const manifestOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));

/**
 * The client packages: every folder of clients/ whose package.json has a build script, each after the
 * client packages it depends on (the reporters and the CLI are built against @verdict/client's dist/).
 */
function clientPackages() {
  if (!fs.existsSync(clientsDir)) return [];
  const dirs = fs
    .readdirSync(clientsDir)
    .sort()
    .map((name) => path.join(clientsDir, name))
    .filter(
      (dir) => fs.existsSync(path.join(dir, 'package.json')) && Boolean(manifestOf(dir).scripts?.build),
    );
  const byName = new Map(dirs.map((dir) => [manifestOf(dir).name, dir]));
  const ordered = [];
  const visit = (dir, seen = new Set()) => {
    if (ordered.includes(dir) || seen.has(dir)) return;
    seen.add(dir);
    const { dependencies = {}, devDependencies = {} } = manifestOf(dir);
    for (const name of Object.keys({ ...dependencies, ...devDependencies })) {
      const needed = byName.get(name);
      if (needed) visit(needed, seen);
    }
    ordered.push(dir);
  };
  for (const dir of dirs) visit(dir);
  return ordered;
}

function filesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      // Tests are not built into anything.
      if (SKIPPED.has(entry.name) || entry.name.endsWith('.test.ts')) return [];
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(full) : [full];
    });
}

function inputsDigest(packages) {
  const hash = crypto.createHash('sha256');
  const files = [
    path.join(root, 'package-lock.json'),
    ...SOURCES.flatMap((dir) => filesUnder(path.join(root, dir))),
    ...packages.flatMap((dir) => filesUnder(dir)),
  ];
  for (const file of files) hash.update(path.relative(root, file)).update(fs.readFileSync(file));
  return hash.digest('hex');
}

/** True when every client package has its dist/ and generated types, built from the current inputs. */
function isFresh(packages, digest) {
  const current = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8') : '';
  return (
    current === digest &&
    packages.every(
      (dir) =>
        fs.existsSync(path.join(dir, 'dist')) &&
        (GENERATED[manifestOf(dir).name] ?? []).every((out) => fs.existsSync(path.join(dir, out))),
    )
  );
}

/**
 * Links the bins of the client packages (`verdict`, `verdict-mcp`) into node_modules/.bin, as npm links a
 * dependency's: npm skips a workspace bin whose file is missing at install time, and these are build
 * outputs (dist/), so `npx verdict` in the clone would find nothing. A link that is not ours is left alone.
 */
function linkBins(packages) {
  const binDir = path.join(root, 'node_modules', '.bin');
  for (const dir of packages) {
    const { name, bin = {} } = manifestOf(dir);
    const bins = typeof bin === 'string' ? { [name.split('/').pop()]: bin } : bin;
    for (const [command, file] of Object.entries(bins)) {
      const target = path.join(root, 'node_modules', name, file);
      if (!fs.existsSync(target)) continue;
      fs.chmodSync(target, 0o755);
      const link = path.join(binDir, command);
      const wanted = path.relative(binDir, target);
      let existing = null;
      try {
        existing = fs.readlinkSync(link);
      } catch (error) {
        if (error.code !== 'ENOENT') continue; // a file of someone else's, not a link
      }
      if (existing === wanted) continue;
      const ours = path.join(root, 'node_modules', name) + path.sep;
      if (existing !== null && !path.resolve(binDir, existing).startsWith(ours)) continue;
      fs.mkdirSync(binDir, { recursive: true });
      fs.rmSync(link, { force: true });
      fs.symlinkSync(wanted, link);
    }
  }
}

/**
 * Builds the client packages unless they are fresh, and links their bins; resolves with 0 or the failing
 * build's exit code.
 */
async function ensureClientsBuilt({ force = false } = {}) {
  const packages = clientPackages();
  const digest = inputsDigest(packages);
  if (force || !isFresh(packages, digest)) {
    for (const dir of packages) {
      log(`building ${path.relative(root, dir)}`);
      // npm runs the package's own build script, under the Node 22 that run.cjs put first on PATH.
      const code = await run('npm', ['run', 'build', '--silent', '--workspace', path.relative(root, dir)]);
      if (code !== 0) return code;
    }
    fs.writeFileSync(stampFile, digest);
  }
  linkBins(packages);
  return 0;
}

module.exports = { ensureClientsBuilt, clientPackages };
