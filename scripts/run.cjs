#!/usr/bin/env node
// The entry of every npm script. It may be started by any Node (a fresh machine has Node 20): it installs
// the dependencies when they are missing or stale, then re-runs the real command under the Node 22 that the
// `node` devDependency ships, so `npm start` and `npm test` are single commands on a fresh clone.
'use strict';
const { spawnSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const node22 = path.join(root, 'node_modules', 'node', 'bin', 'node');
const stampFile = path.join(root, 'node_modules', '.verdict-install-stamp');

function log(message) {
  process.stderr.write(`[verdict] ${message}\n`);
}

function manifestsDigest() {
  const hash = crypto.createHash('sha256');
  const lock = path.join(root, 'package-lock.json');
  const manifests = [path.join(root, 'package.json'), lock];
  for (const dir of ['contracts', 'platform', 'e2e', 'bench'])
    manifests.push(path.join(root, dir, 'package.json'));
  const services = path.join(root, 'services');
  for (const name of fs.existsSync(services) ? fs.readdirSync(services).sort() : []) {
    manifests.push(path.join(services, name, 'package.json'));
  }
  for (const file of manifests) if (fs.existsSync(file)) hash.update(file).update(fs.readFileSync(file));
  return hash.digest('hex');
}

function ensureInstalled() {
  const digest = manifestsDigest();
  const current = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8') : '';
  if (fs.existsSync(node22) && current === digest) return;
  log('installing dependencies (npm install)…');
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    log('npm install failed');
    process.exit(result.status ?? 1);
  }
  fs.writeFileSync(stampFile, manifestsDigest());
}

/** Runs a command to completion, forwarding its output; resolves with its exit code. */
function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', ...options });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

function readInfraEnv() {
  const infraDir = process.env.VERDICT_INFRA_DIR || path.join(root, '.infra');
  const file = path.join(infraDir, 'env');
  const env = {};
  if (!fs.existsSync(file)) return env;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=["']?(.*?)["']?$/.exec(line.trim());
    if (match) env[match[1]] = match[2];
  }
  return env;
}

const servers = [
  { name: 'postgres', variable: 'DATABASE_URL' },
  { name: 'kafka', variable: 'KAFKA_BROKERS' },
  { name: 'redis', variable: 'REDIS_URL' },
];

/**
 * Provisions, through infra/local, every server whose variable is not already set, and returns the
 * environment to run with plus the list of servers this call started (so they can be stopped after).
 */
async function provisionInfra() {
  const wanted = servers.filter((s) => !process.env[s.variable]).map((s) => s.name);
  if (wanted.length === 0) return { env: {}, started: [] };
  const statusCode = await run('bash', [path.join(root, 'infra/local/status'), '--quiet', ...wanted], {
    stdio: 'ignore',
  });
  const alreadyRunning = statusCode === 0;
  const upCode = await run('bash', [path.join(root, 'infra/local/up'), ...wanted]);
  if (upCode !== 0) {
    log(`infra/local/up failed (exit ${upCode}); the integration tests need real servers`);
    process.exit(upCode);
  }
  const infraEnv = readInfraEnv();
  const env = {};
  for (const s of servers)
    if (wanted.includes(s.name) && infraEnv[s.variable]) env[s.variable] = infraEnv[s.variable];
  return { env, started: alreadyRunning ? [] : wanted };
}

async function stopInfra(started) {
  if (started.length === 0 || process.env.VERDICT_KEEP_INFRA === '1') return;
  await run('bash', [path.join(root, 'infra/local/down'), ...started]);
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  ensureInstalled();
  // Children (jest workers, tsc, eslint, infra scripts that call node) get Node 22 first on PATH too.
  process.env.PATH = `${path.dirname(node22)}${path.delimiter}${process.env.PATH}`;
  switch (command) {
    case 'start': {
      // Fewer malloc arenas and a smaller young generation keep an idle embedded process small.
      const code = await run(
        node22,
        ['--max-semi-space-size=4', '--import', 'tsx', 'services/embedded/src/main.ts', ...rest],
        { env: { MALLOC_ARENA_MAX: '2', ...process.env } },
      );
      process.exit(code);
      break;
    }
    case 'test': {
      // A bare `npm test` is the whole gate: static checks first (they fail fast), then every test.
      if (rest.length === 0) {
        const bin = (name) => path.join(root, 'node_modules', '.bin', name);
        for (const [name, args] of [
          ['tsc', ['-p', 'tsconfig.json', '--noEmit']],
          ['eslint', ['.']],
          ['prettier', ['--check', '.', '--log-level', 'warn']],
        ]) {
          log(`${name} ${args.join(' ')}`);
          const code = await run(bin(name), args);
          if (code !== 0) process.exit(code);
        }
      }
      const unitOnly =
        rest.includes('--selectProjects') && rest[rest.indexOf('--selectProjects') + 1] === 'unit';
      const { env, started } = unitOnly ? { env: {}, started: [] } : await provisionInfra();
      const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
      // PGlite loads its WebAssembly with import(), which jest's sandbox allows only with vm modules on.
      const nodeFlags = ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'];
      const code = await run(node22, [...nodeFlags, jest, '--maxWorkers=2', ...rest], {
        env: { ...process.env, ...env },
      });
      await stopInfra(started);
      process.exit(code);
      break;
    }
    case 'bench': {
      const { env, started } = await provisionInfra();
      const code = await run(node22, ['--import', 'tsx', 'bench/src/run.ts', ...rest], {
        env: { ...process.env, ...env },
      });
      await stopInfra(started);
      process.exit(code);
      break;
    }
    default:
      log(`unknown command ${command}`);
      process.exit(2);
  }
}

main().catch((error) => {
  log(error.stack || String(error));
  process.exit(1);
});
