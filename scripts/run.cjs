#!/usr/bin/env node
// The entry of every npm script. It may be started by any Node (a fresh machine has Node 20): it installs
// the dependencies when they are missing or stale, then re-runs the real command under the Node 22 that the
// `node` devDependency ships, so `npm start` and `npm test` are single commands on a fresh clone.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { bundleEntries, SERVICE_ENV, SERVICE_NODE_FLAGS } = require('./bundle.cjs');
const { ensureClientsBuilt } = require('./clients.cjs');
const { ensureWebBuilt, webDistDir } = require('./web.cjs');
const { runComponentTests, runWebTests } = require('./web-tests.cjs');
const { root, node22, log, run, watchParent, provisionInfra, stopInfra } = require('./lib.cjs');

const stampFile = path.join(root, 'node_modules', '.verdict-install-stamp');
/** The TypeScript projects `npm run typecheck` checks: Node code, the web app (DOM), its unit tests, its browser tests. */
const TS_PROJECTS = [
  'tsconfig.json',
  'web/tsconfig.json',
  'web/tsconfig.unit.json',
  'web/tsconfig.tests.json',
];

function manifestsDigest() {
  const hash = crypto.createHash('sha256');
  const lock = path.join(root, 'package-lock.json');
  const manifests = [path.join(root, 'package.json'), lock];
  for (const dir of ['contracts', 'platform', 'e2e', 'bench', 'web'])
    manifests.push(path.join(root, dir, 'package.json'));
  for (const group of ['services', 'clients']) {
    const folder = path.join(root, group);
    for (const name of fs.existsSync(folder) ? fs.readdirSync(folder).sort() : []) {
      manifests.push(path.join(folder, name, 'package.json'));
    }
  }
  for (const file of manifests) if (fs.existsSync(file)) hash.update(file).update(fs.readFileSync(file));
  return hash.digest('hex');
}

/** npm's lines of an engine warning (`npm warn EBADENGINE …`, several a package), under an older Node. */
const ENGINE_WARNING = /^npm warn EBADENGINE\b/i;

/**
 * Runs `npm install` when the dependencies are missing or stale. The dev dependencies are always included:
 * they are what the launcher itself runs (Node 22, tsx, the builds), and npm would leave them out when the
 * shell says NODE_ENV=production, which the services still get as it was. npm's engine warnings (every
 * package that wants Node 22, when npm runs on an older one) become one line: Verdict runs on node22.
 */
async function ensureInstalled() {
  const digest = manifestsDigest();
  const current = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8') : '';
  if (fs.existsSync(node22) && current === digest) return;
  log('installing dependencies (npm install)…');
  const npm = spawn('npm', ['install', '--no-audit', '--no-fund', '--include=dev'], {
    cwd: root,
    stdio: ['inherit', 'inherit', 'pipe'],
  });
  const forward = (signal) => npm.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  let engineWarnings = 0;
  readline.createInterface({ input: npm.stderr }).on('line', (line) => {
    if (ENGINE_WARNING.test(line)) engineWarnings += 1;
    else process.stderr.write(`${line}\n`);
  });
  const status = await new Promise((resolve) => npm.on('close', (code) => resolve(code)));
  process.off('SIGINT', forward);
  process.off('SIGTERM', forward);
  if (status !== 0) {
    log('npm install failed');
    process.exit(status ?? 1);
  }
  fs.writeFileSync(stampFile, manifestsDigest());
  if (engineWarnings > 0) {
    const version = spawnSync(node22, ['--version'], { encoding: 'utf8' }).stdout.trim();
    log(
      `npm ran on Node ${process.version}; Verdict runs on the Node ${version} it installed (node_modules/node)`,
    );
  }
}

/** Whether the jest run that `args` select includes a container test (`*.containers.e2e.test.ts`). */
function selectsContainerTests(jest, args) {
  if (args.length === 0) return true;
  const listed = spawnSync(node22, [jest, '--listTests', ...args], { cwd: root, encoding: 'utf8' });
  return listed.status === 0 && /containers\.e2e\.test\.ts$/m.test(listed.stdout);
}

/** The client package, then the web app that imports it; resolves with 0 or the failing build's code. */
async function buildApp() {
  const clients = await ensureClientsBuilt();
  return clients !== 0 ? clients : ensureWebBuilt();
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  // Stopped by whoever stopped our parent (npm's shell dies of the SIGTERM it does not pass on): the child
  // gets the SIGTERM, through the forwarding of `run`, and shuts down as it would on Ctrl-C.
  watchParent(() => {
    log('parent process exited; stopping');
    process.kill(process.pid, 'SIGTERM');
  });
  await ensureInstalled();
  // Children (jest workers, tsc, eslint, infra scripts that call node) get Node 22 first on PATH too.
  process.env.PATH = `${path.dirname(node22)}${path.delimiter}${process.env.PATH}`;
  switch (command) {
    case 'start': {
      // The gateway serves the web app: built first when missing or stale (its client package before it).
      const built = await buildApp();
      if (built !== 0) process.exit(built);
      // The embedded process runs from a bundle of the workspace's TypeScript (built in well under a
      // second): an on-the-fly TypeScript loader would cost it ~30 MB of resident memory for good. Fewer
      // malloc arenas and a smaller young generation keep the idle process small too.
      const { embedded } = await bundleEntries({ embedded: 'services/embedded/src/main.ts' });
      const code = await run(node22, [...SERVICE_NODE_FLAGS, '--max-semi-space-size=4', embedded, ...rest], {
        env: { ...SERVICE_ENV, VERDICT_WEB_DIR: webDistDir, ...process.env },
        launcherPipe: true,
      });
      process.exit(code);
      break;
    }
    case 'build-clients': {
      process.exit(await ensureClientsBuilt({ force: rest.includes('--force') }));
      break;
    }
    case 'typecheck': {
      // The client packages' types are generated from the contracts: built first (when stale).
      const built = await ensureClientsBuilt();
      if (built !== 0) process.exit(built);
      for (const project of TS_PROJECTS) {
        const code = await run(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', project, '--noEmit']);
        if (code !== 0) process.exit(code);
      }
      process.exit(0);
      break;
    }
    case 'test': {
      // The client packages are built (when stale) before anything reads their generated types or dist/.
      const built = await ensureClientsBuilt();
      if (built !== 0) process.exit(built);
      // A bare `npm test` is the whole gate: static checks first (they fail fast), then every test.
      if (rest.length === 0) {
        const bin = (name) => path.join(root, 'node_modules', '.bin', name);
        for (const [name, args] of [
          ...TS_PROJECTS.map((project) => ['tsc', ['-p', project, '--noEmit']]),
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
      const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
      // The container suite needs a Docker engine: started (installed first if need be) only when it runs.
      const requested = !unitOnly && selectsContainerTests(jest, rest) ? ['docker'] : [];
      const { env, started } = unitOnly ? { env: {}, started: [] } : await provisionInfra(requested);
      // PGlite loads its WebAssembly with import(), which jest's sandbox allows only with vm modules on.
      const nodeFlags = ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'];
      const summaryFile = path.join(os.tmpdir(), `verdict-tests-${process.pid}.json`);
      // One test file at a time: the integration files share one PostgreSQL, whose readers by global position
      // rightly wait for every transaction in flight on the server, including another file's deliberate ones.
      // --forceExit: since 2026-11-29 something a test leaves behind (a timer, not a socket or a child process;
      // not found yet: `--detectOpenHandles`) keeps the process alive after every test has passed.
      const code = await run(node22, [...nodeFlags, jest, '--runInBand', '--forceExit', ...rest], {
        env: { ...process.env, ...env, VERDICT_TEST_SUMMARY_FILE: summaryFile },
      });
      await stopInfra(started);
      const totals = { passed: 0, failed: 0, skipped: 0 };
      if (fs.existsSync(summaryFile)) {
        const counts = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
        fs.rmSync(summaryFile);
        for (const key of Object.keys(totals)) totals[key] += counts[key];
      }
      // The whole gate also runs the web app's component tests and opens the app in a real browser
      // (web/tests): their failures fail the build.
      let webCode = 0;
      if (rest.length === 0) {
        const components = await runComponentTests();
        if (components.counts) for (const key of Object.keys(totals)) totals[key] += components.counts[key];
        else if (components.code !== 0) totals.failed += 1;
        const builtApp = await buildApp();
        const web = builtApp === 0 ? await runWebTests() : { code: builtApp, counts: null };
        webCode = components.code !== 0 ? components.code : web.code;
        if (web.counts) for (const key of Object.keys(totals)) totals[key] += web.counts[key];
        else if (web.code !== 0) totals.failed += 1;
      }
      process.stdout.write(
        `\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`,
      );
      process.exit(code !== 0 ? code : webCode);
      break;
    }
    case 'bench': {
      // The benches import the client packages and open the web app: both built (when stale) first.
      const built = await buildApp();
      if (built !== 0) process.exit(built);
      const { env, started } = await provisionInfra();
      const code = await run(node22, ['--import', 'tsx', 'bench/src/run.ts', ...rest], {
        env: { ...process.env, ...env },
      });
      await stopInfra(started);
      process.exit(code);
      break;
    }
    case 'test-faults': {
      // The full fault-injection suite (e2e/src/faults): it starts the distributed mode and `npm start`
      // itself, on the client package (built when stale), and stops and starts the local servers.
      const built = await buildApp();
      if (built !== 0) process.exit(built);
      const { env, started } = await provisionInfra();
      const code = await run(node22, ['--import', 'tsx', 'e2e/src/faults/main.ts', ...rest], {
        env: { ...process.env, ...env },
      });
      await stopInfra(started);
      process.exit(code);
      break;
    }
    case 'test-web': {
      // The browser tests alone (`npm run test:web -- -g "sign in"`): the app built, then Playwright.
      const built = await buildApp();
      if (built !== 0) process.exit(built);
      const { code, counts } = await runWebTests(rest);
      if (counts)
        process.stdout.write(
          `\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
        );
      process.exit(code);
      break;
    }
    case 'test-components': {
      // The component tests alone (`npm run test:components -- FilterBar`): Vitest in Chromium, no server.
      const { code, counts } = await runComponentTests(rest);
      if (counts)
        process.stdout.write(
          `\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
        );
      process.exit(code);
      break;
    }
    case 'build-web': {
      const built = await ensureClientsBuilt();
      process.exit(built !== 0 ? built : await ensureWebBuilt({ force: rest.includes('--force') }));
      break;
    }
    case 'start-distributed': {
      const built = await buildApp();
      if (built !== 0) process.exit(built);
      // The launcher provisions the servers itself: it must know which ones it started to stop only those.
      const code = await run(node22, [path.join(root, 'scripts/start-distributed.cjs'), ...rest], {
        launcherPipe: true,
      });
      process.exit(code);
      break;
    }
    case 'demo': {
      // An API client like the reporters: the demo history and its loader come from @verdict/client/demo.
      const built = await ensureClientsBuilt();
      if (built !== 0) process.exit(built);
      process.exit(await run(node22, [path.join(root, 'scripts/demo.cjs'), ...rest]));
      break;
    }
    case 'dlq': {
      // An admin API client: the dead letters of a running Verdict (scripts/dlq.cjs).
      process.exit(await run(node22, [path.join(root, 'scripts/dlq.cjs'), ...rest]));
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
