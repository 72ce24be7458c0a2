#!/usr/bin/env node
// `npm run start:distributed`: Verdict in its distributed mode on this machine. It brings up the local
// PostgreSQL, Kafka, Redis and Apicurio Registry (infra/local) unless DATABASE_URL, KAFKA_BROKERS, REDIS_URL
// and SCHEMA_REGISTRY_URL point at servers already, starts every service that exists as its own process (in order, each one ready before
// the next), prefixes their output with their names, and on Ctrl-C stops them, then the servers it
// started itself (never those that were running before). Started by scripts/run.cjs under Node 22.
//
// A service that crashes once it has been ready is started again, after a delay that grows while it keeps
// crashing (restart-policy.cjs); one that fails its first start stops everything, as a bad configuration
// would make it fail again.
//
// No orphans: each service holds a pipe from this launcher and stops when it ends, so a launcher killed
// mid-way (a supervisor's SIGKILL to the process group) takes its services down with it; and this launcher
// stops when run.cjs, which started it, is gone. A start refuses, naming the port and the pid, while a port
// it needs is held (an earlier Verdict still running would share its Kafka consumer groups with this one).
'use strict';
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { bundleEntries, SERVICE_ENV, SERVICE_NODE_FLAGS } = require('./bundle.cjs');
const {
  root,
  node22,
  infraDir,
  log,
  readEnvFile,
  provisionInfra,
  stopInfra,
  withLauncherPipe,
  whenLauncherGone,
  portHolder,
  portIsFree,
} = require('./lib.cjs');
const { nextStreak, restartDelay, describeDelay } = require('./restart-policy.cjs');

/** Every service that runs as its own process, in start order. A new service is one more line. */
const testResultsPort = process.env.VERDICT_TEST_RESULTS_PORT || '8081';
const manualTestingPort = process.env.VERDICT_MANUAL_TESTING_PORT || '8083';
const webhooksPort = process.env.VERDICT_WEBHOOKS_PORT || '8082';
const analyticsPort = process.env.VERDICT_ANALYTICS_PORT || '8084';
const testResultsProjectorPort = process.env.VERDICT_TEST_RESULTS_PROJECTOR_PORT || '8085';
const services = [
  {
    name: 'gateway',
    entry: 'services/gateway/src/main.ts',
    port: process.env.PORT || '8080',
    env: {
      VERDICT_TEST_RESULTS_URL: process.env.VERDICT_TEST_RESULTS_URL || `http://127.0.0.1:${testResultsPort}`,
      VERDICT_MANUAL_TESTING_URL:
        process.env.VERDICT_MANUAL_TESTING_URL || `http://127.0.0.1:${manualTestingPort}`,
      VERDICT_WEBHOOKS_URL: process.env.VERDICT_WEBHOOKS_URL || `http://127.0.0.1:${webhooksPort}`,
      VERDICT_ANALYTICS_URL: process.env.VERDICT_ANALYTICS_URL || `http://127.0.0.1:${analyticsPort}`,
    },
  },
  // The runs read model is applied by a process of its own, so that its work never waits behind request
  // parsing on the API's event loop (docs/operations.md).
  {
    name: 'test-results',
    entry: 'services/test-results/src/main.ts',
    port: testResultsPort,
    env: { VERDICT_TEST_RESULTS_ROLE: 'api' },
  },
  {
    name: 'test-results-projector',
    entry: 'services/test-results/src/main.ts',
    port: testResultsProjectorPort,
    env: { VERDICT_TEST_RESULTS_ROLE: 'projector' },
  },
  { name: 'manual-testing', entry: 'services/manual-testing/src/main.ts', port: manualTestingPort },
  { name: 'webhooks', entry: 'services/webhooks/src/main.ts', port: webhooksPort },
  { name: 'analytics', entry: 'services/analytics/src/main.ts', port: analyticsPort },
];

const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;
const COLOURS = [36, 35, 33, 32, 34, 31];
const SECRETS = [
  // Sizes well above the minimums the gateway enforces (16 and 32 characters).
  { name: 'VERDICT_ADMIN_KEY', bytes: 32 },
  { name: 'VERDICT_INTERNAL_SECRET', bytes: 48 },
  { name: 'VERDICT_URL_SIGNING_SECRET', bytes: 48 },
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------
// Secrets

function writePrivateFile(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/**
 * The secrets the environment does not set, from `.infra/secrets.env`; generated there once (mode 0600)
 * so that tokens and the admin key stay valid across restarts. Returns the values and how each was found.
 */
function resolveSecrets() {
  const file = path.join(infraDir(), 'secrets.env');
  const kept = readEnvFile(file);
  const env = {};
  const origin = {};
  let changed = false;
  for (const { name, bytes } of SECRETS) {
    if (process.env[name]) origin[name] = 'environment';
    else if (kept[name]) origin[name] = 'file';
    else {
      kept[name] = crypto.randomBytes(bytes).toString('base64url');
      origin[name] = 'generated';
      changed = true;
    }
    if (origin[name] !== 'environment') env[name] = kept[name];
  }
  if (changed) {
    const lines = Object.entries(kept).map(([name, value]) => `${name}=${value}`);
    writePrivateFile(
      file,
      `# Generated by npm run start:distributed; keep it private.\n${lines.join('\n')}\n`,
    );
  }
  return { env, origin, file };
}

// ---------------------------------------------------------------------------------------------------------
// Child processes

function prefixOf(service, index, stream) {
  const label = `[${service.name}]`;
  const coloured = stream.isTTY && !process.env.NO_COLOR;
  return coloured ? `\x1b[${COLOURS[index % COLOURS.length]}m${label}\x1b[0m ` : `${label} `;
}

/** Copies a child's lines to our stream with its prefix; `onLine` sees each line too. */
function forwardLines(input, output, prefix, onLine) {
  readline.createInterface({ input, crlfDelay: Infinity }).on('line', (line) => {
    onLine(line);
    output.write(`${prefix}${line}\n`);
  });
}

/**
 * Starts one service. It gets its own process group so that the terminal's Ctrl-C reaches only this
 * launcher, which then stops each child exactly once (a second signal makes a service exit at once).
 */
function startService(service, index, env, bundle) {
  const child = spawn(
    node22,
    [...SERVICE_NODE_FLAGS, bundle],
    withLauncherPipe(
      {
        cwd: root,
        env: { ...SERVICE_ENV, ...process.env, ...env, ...service.env, PORT: service.port },
        detached: true,
      },
      ['ignore', 'pipe', 'pipe'],
    ),
  );
  const running = {
    service,
    child,
    port: service.port === '0' ? null : service.port,
    exit: null,
    startedAt: Date.now(),
  };
  // With PORT=0 the service picks a port; its "listening on" line tells which.
  const learnPort = (line) => {
    const match = running.port === null ? /listening on https?:\/\/\S+?:(\d+)/.exec(line) : null;
    if (match) running.port = match[1];
  };
  forwardLines(child.stdout, process.stdout, prefixOf(service, index, process.stdout), learnPort);
  forwardLines(child.stderr, process.stderr, prefixOf(service, index, process.stderr), learnPort);
  running.exited = new Promise((resolve) => {
    child.once('error', (error) => {
      log(`${service.name} could not start: ${error.message}`);
      running.exit = { code: 1, signal: null };
      resolve(running.exit);
    });
    child.once('exit', (code, signal) => {
      running.exit = { code, signal };
      resolve(running.exit);
    });
  });
  return running;
}

/**
 * The services' ports that something already listens on, with who holds them. Checked before anything
 * starts: a new Verdict beside an earlier one that still runs would share its Kafka consumer groups.
 */
async function heldPorts() {
  const host = process.env.HOST || '127.0.0.1';
  const held = [];
  for (const service of services) {
    if (service.port === '0' || (await portIsFree(service.port, host))) continue;
    held.push({ service, holder: portHolder(Number(service.port)) });
  }
  return held;
}

function describeHeld({ service, holder }) {
  const by = holder === null ? 'another process' : `pid ${holder.pid} (${holder.command.slice(0, 160)})`;
  return `port ${service.port} (${service.name}) is in use by ${by}`;
}

/** The address to probe: a wildcard listen address is reached on loopback. */
function probeHost() {
  const host = process.env.HOST || '127.0.0.1';
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Whether /readyz answers 200; what it answered last is kept on `running.lastReadiness` for the log. */
async function answersReady(running) {
  try {
    const response = await fetch(`http://${probeHost()}:${running.port}/readyz`, {
      signal: AbortSignal.timeout(2_000),
    });
    running.lastReadiness = `${response.status} ${(await response.text()).slice(0, 300)}`;
    return response.status === 200;
  } catch (error) {
    running.lastReadiness = `no answer (${error.cause?.code ?? error.name})`;
    return false;
  }
}

/** Polls /readyz until 200; false when the child exits, the launcher stops or the time runs out. */
async function waitUntilReady(running, state) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (running.exit !== null || state.stopping) return false;
    if (running.port !== null && (await answersReady(running))) return true;
    await sleep(200);
  }
  return false;
}

/** SIGTERM, then SIGKILL after the grace period; resolves true when the child stopped cleanly. */
async function stopChild(running) {
  if (running.exit === null) {
    running.child.kill('SIGTERM');
    const stopped = await Promise.race([
      running.exited.then(() => true),
      sleep(STOP_GRACE_MS).then(() => false),
    ]);
    if (!stopped) {
      log(`${running.service.name} did not stop within ${STOP_GRACE_MS / 1000} s; killing it`);
      running.child.kill('SIGKILL');
      await running.exited;
      return false;
    }
  }
  const { code, signal } = running.exit;
  const clean = code === 0 || signal === 'SIGTERM';
  // The launcher's exit code is then 1: this line says which service made it so.
  if (!clean) log(`${running.service.name} did not stop cleanly (${describeExit(running.exit)})`);
  return clean;
}

function describeExit({ code, signal }) {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/** Why a service is not ready yet, for the log. */
function lastAnswer(running) {
  return running.port === null
    ? 'it never said which port it listens on (still starting: see its warnings above)'
    : `its /readyz answered: ${running.lastReadiness ?? 'nothing yet'}`;
}

// ---------------------------------------------------------------------------------------------------------
// Supervision

/** One service and the process that runs it now: a restart replaces the process, never the slot. */
function createSlot(service, index) {
  return { service, index, running: null, ready: false, restarts: 0, streak: 0, timer: null };
}

/** Starts the slot's service and watches for its process to end. */
function launch(slot, context) {
  const running = startService(slot.service, slot.index, context.env, context.bundleOf(slot.service));
  slot.running = running;
  log(`started ${slot.service.name} (pid ${running.child.pid})`);
  void running.exited.then((exit) => onExit(slot, running, exit, context));
  return running;
}

/**
 * An exit the launcher did not ask for. Before the service was ever ready it stops everything: its
 * configuration or a server it needs is wrong, and would be again. Once it has been ready, it is started
 * again after the policy's delay, with a line in the log.
 */
function onExit(slot, running, exit, context) {
  if (context.state.stopping) return;
  const reason = `${slot.service.name} exited unexpectedly (${describeExit(exit)})`;
  if (!slot.ready) {
    void context.shutdown(1, reason);
    return;
  }
  slot.streak = nextStreak(slot.streak, Date.now() - running.startedAt);
  slot.restarts += 1;
  const delay = restartDelay(slot.streak);
  log(`${reason}; restarting in ${describeDelay(delay)} (restart ${slot.restarts})`);
  slot.timer = setTimeout(() => {
    slot.timer = null;
    // A shutdown clears this timer; checked again all the same, as nothing may start once it began.
    if (!context.state.stopping) void relaunch(slot, context);
  }, delay);
}

/** A restart: the new process is left running even when it is slow to get ready, as at the first start. */
async function relaunch(slot, context) {
  const running = launch(slot, context);
  const { name } = slot.service;
  if (await waitUntilReady(running, context.state)) log(`${name} is ready on port ${running.port}`);
  else if (running.exit === null && !context.state.stopping)
    log(`${name} was not ready within ${READY_TIMEOUT_MS / 1000} s of its restart; ${lastAnswer(running)}`);
}

// ---------------------------------------------------------------------------------------------------------
// Lifecycle

function printBanner(gateway, secrets, infra) {
  const publicUrl = (process.env.VERDICT_PUBLIC_URL || `http://localhost:${gateway.port}`).replace(
    /\/+$/,
    '',
  );
  const adminKey = {
    environment: 'from VERDICT_ADMIN_KEY',
    file: `kept in ${secrets.file} (VERDICT_ADMIN_KEY)`,
    generated: `${secrets.env.VERDICT_ADMIN_KEY}   (generated; kept in ${secrets.file}, mode 0600)`,
  }[secrets.origin.VERDICT_ADMIN_KEY];
  const lines = [
    '',
    `Verdict is running (distributed mode) at ${publicUrl}`,
    `  Web app:     ${publicUrl}/   (sign in with a personal access token)`,
    `  API base:    ${publicUrl}/api/public/v1`,
    `  Admin API:   ${publicUrl}/admin/v1   (Authorization: Bearer <admin key>)`,
    `  Admin key:   ${adminKey}`,
    `  Servers:     ${infra.started.length > 0 ? `started here: ${infra.started.join(', ')}` : 'already running; left running on exit'}`,
    '  Stop with Ctrl-C.',
  ];
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

async function main() {
  const state = { stopping: false, provisioning: false, slots: [], infra: { started: [] }, done: null };

  // Every way out goes through here once: no restart pending starts, the services stop (last started
  // first), then our servers.
  const shutdown = (code, reason) => {
    if (state.done) return state.done;
    state.stopping = true;
    for (const slot of state.slots) clearTimeout(slot.timer);
    // Until provisioning ends we do not know which servers are ours: main() stops once it does.
    if (state.provisioning) return null;
    log(`${reason}; stopping`);
    state.done = (async () => {
      let clean = true;
      for (const slot of [...state.slots].reverse()) clean = (await stopChild(slot.running)) && clean;
      await stopInfra(state.infra.started);
      process.exit(code === 0 && !clean ? 1 : code);
    })();
    return state.done;
  };
  // npm, run.cjs and the terminal may each deliver the same Ctrl-C: the first one counts.
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.on(signal, () => void shutdown(0, `received ${signal}`));
  // A crash of this launcher must not leave services running behind it (a SIGKILL skips this: then each
  // service sees its launcher pipe end).
  process.on('exit', () => {
    for (const { running } of state.slots) if (running.exit === null) running.child.kill('SIGKILL');
  });
  whenLauncherGone(() => void shutdown(1, 'the process that started this launcher is gone'));

  const held = await heldPorts();
  if (held.length > 0) {
    for (const port of held) log(`cannot start: ${describeHeld(port)}`);
    log('an earlier Verdict may still be running: stop it (or set other ports) and start again');
    process.exit(1);
  }

  state.provisioning = true;
  state.infra = await provisionInfra();
  state.provisioning = false;
  if (state.stopping) return shutdown(0, 'stopped while the servers were starting');
  const secrets = resolveSecrets();
  // One bundle per entry (test-results and its projector share theirs), named by the service's folder.
  const folderOf = (service) => service.entry.split('/')[1];
  const bundles = await bundleEntries(
    Object.fromEntries(services.map((service) => [folderOf(service), service.entry])),
  );
  const context = {
    state,
    shutdown,
    env: { ...state.infra.env, ...secrets.env },
    bundleOf: (service) => bundles[folderOf(service)],
  };

  for (const [index, service] of services.entries()) {
    const slot = createSlot(service, index);
    state.slots.push(slot);
    const running = launch(slot, context);
    if (!(await waitUntilReady(running, state))) {
      if (running.exit === null && !state.stopping)
        void shutdown(
          1,
          `${service.name} was not ready within ${READY_TIMEOUT_MS / 1000} s; ${lastAnswer(running)}`,
        );
      return state.done;
    }
    slot.ready = true;
    log(`${service.name} is ready on port ${running.port}`);
  }
  printBanner(state.slots.find((slot) => slot.service.name === 'gateway').running, secrets, state.infra);
  return undefined;
}

main().catch((error) => {
  log(error.stack || String(error));
  process.exit(1);
});
