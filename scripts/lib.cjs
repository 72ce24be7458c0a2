// Helpers shared by the npm-script entry (run.cjs) and the launchers it starts: where things are, how to run
// a command with the terminal's signals forwarded, and how to bring up (and back down) only the local
// servers a command needs. Plain CommonJS on purpose: any Node may load it before dependencies exist.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const node22 = path.join(root, 'node_modules', 'node', 'bin', 'node');
const infraDir = () => process.env.VERDICT_INFRA_DIR || path.join(root, '.infra');

function log(message) {
  process.stderr.write(`[verdict] ${message}\n`);
}

/**
 * The variable that names the descriptor of the pipe a launcher holds open to its child (platform's
 * LAUNCHER_FD_VARIABLE): the child stops when the pipe ends, that is when the launcher is gone, however.
 */
const LAUNCHER_FD_VARIABLE = 'VERDICT_LAUNCHER_FD';
const LAUNCHER_FD = 3;

/** Spawn options that give a child the launcher pipe on descriptor 3 (`stdio` as given for 0 to 2). */
function withLauncherPipe(options, stdio = ['inherit', 'inherit', 'inherit']) {
  return {
    ...options,
    stdio: [...stdio, 'pipe'],
    env: { ...(options.env ?? process.env), [LAUNCHER_FD_VARIABLE]: String(LAUNCHER_FD) },
  };
}

/**
 * Calls `onGone` once the pipe of the launcher that started this process ends (see LAUNCHER_FD_VARIABLE);
 * nothing when there is none. Same as whenLauncherGone in platform/src/process.ts.
 */
function whenLauncherGone(onGone) {
  const fd = Number(process.env[LAUNCHER_FD_VARIABLE]);
  if (!Number.isInteger(fd) || fd < 3) return;
  delete process.env[LAUNCHER_FD_VARIABLE];
  let pipe;
  try {
    pipe = new net.Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  let gone = false;
  const end = () => {
    if (gone) return;
    gone = true;
    onGone();
  };
  pipe.on('end', end);
  pipe.on('close', end);
  pipe.on('error', end);
  pipe.resume();
  pipe.unref();
}

/** The inodes of the sockets listening on TCP `port`, from /proc/net (Linux). */
function listeningInodes(port) {
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1]?.split(':').at(-1);
      if (columns[3] === '0A' && local !== undefined && parseInt(local, 16) === port && columns[9] !== '0') {
        inodes.add(columns[9]);
      }
    }
  }
  return inodes;
}

/**
 * The process listening on TCP `port`, `{pid, command}`, as far as /proc tells; null when unknown. Same as
 * portHolder in platform/src/process.ts (this file must load before any dependency is installed).
 */
function portHolder(port) {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return null;
  let pids;
  try {
    pids = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds;
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target;
      try {
        target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) {
        let command = '?';
        try {
          command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
        } catch {
          // Gone meanwhile, or another user's.
        }
        return { pid: Number(pid), command };
      }
    }
  }
  return null;
}

/** Resolves true when `host:port` can be listened on now (the probe closes at once). */
function portIsFree(port, host) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(Number(port), host, () => probe.close(() => resolve(true)));
  });
}

/**
 * Runs a command to completion, forwarding its output; resolves with its exit code. With `launcherPipe`,
 * the child gets the launcher pipe and stops when this process is gone, even when it is killed.
 */
function run(command, args, options = {}) {
  const { launcherPipe, ...spawnOptions } = options;
  return new Promise((resolve) => {
    const base = { cwd: root, stdio: 'inherit', ...spawnOptions };
    const child = spawn(command, args, launcherPipe ? withLauncherPipe(base) : base);
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

/**
 * Calls `onGone` once when this process's parent exits (it is then re-parented). `npm start` runs its
 * script under `sh -c`, and npm passes a SIGTERM to that shell, which dies without passing it on: without
 * this, a supervisor stopping npm would leave Verdict running, holding its port and data folder.
 */
function watchParent(onGone, intervalMs = 500) {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** `NAME=value` lines of a shell env file (optionally `export`ed and quoted); {} when it does not exist. */
function readEnvFile(file) {
  const env = {};
  if (!fs.existsSync(file)) return env;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=["']?(.*?)["']?$/.exec(line.trim());
    if (match) env[match[1]] = match[2];
  }
  return env;
}

const readInfraEnv = () => readEnvFile(path.join(infraDir(), 'env'));

const servers = [
  { name: 'postgres', variable: 'DATABASE_URL' },
  { name: 'kafka', variable: 'KAFKA_BROKERS' },
  { name: 'redis', variable: 'REDIS_URL' },
  // Stores its schemas in the local PostgreSQL, which infra/local/up brings up with it.
  { name: 'apicurio', variable: 'SCHEMA_REGISTRY_URL', needs: ['postgres'] },
  // Only when asked (the container tests): a Docker engine of our own, and how testcontainers must use it.
  {
    name: 'docker',
    variable: 'DOCKER_HOST',
    onRequest: true,
    alsoSets: ['TESTCONTAINERS_HOST_OVERRIDE', 'TESTCONTAINERS_RYUK_DISABLED'],
  },
];

/** Whether infra/local/status sees this server running (asked one by one: a subset may run already). */
async function isRunning(name) {
  return (
    (await run('bash', [path.join(root, 'infra/local/status'), '--quiet', name], { stdio: 'ignore' })) === 0
  );
}

/**
 * Provisions, through infra/local, every server whose variable is not already set (and those of `requested`
 * that only come on request), and returns the environment to run with plus the list of servers this call
 * started (so they can be stopped after, and only those: a server that was running before belongs to
 * someone else).
 */
async function provisionInfra(requested = []) {
  const wanted = servers
    .filter((s) => !process.env[s.variable] && (!s.onRequest || requested.includes(s.name)))
    .map((s) => s.name);
  if (wanted.length === 0) return { env: {}, started: [] };
  // A dependency brought up along with a wanted server is ours to stop too, when it was not running.
  const touched = [
    ...new Set(servers.filter((s) => wanted.includes(s.name)).flatMap((s) => [...(s.needs ?? []), s.name])),
  ];
  const runningBefore = [];
  for (const name of touched) if (await isRunning(name)) runningBefore.push(name);
  const upCode = await run('bash', [path.join(root, 'infra/local/up'), ...wanted]);
  if (upCode !== 0) {
    log(
      `infra/local/up failed (exit ${upCode}); the tests, the bench and the distributed mode need real servers`,
    );
    process.exit(upCode);
  }
  const infraEnv = readInfraEnv();
  const env = {};
  for (const s of servers) {
    if (!wanted.includes(s.name)) continue;
    for (const variable of [s.variable, ...(s.alsoSets ?? [])])
      if (infraEnv[variable] && !process.env[variable]) env[variable] = infraEnv[variable];
  }
  return { env, started: touched.filter((name) => !runningBefore.includes(name)) };
}

async function stopInfra(started) {
  if (started.length === 0 || process.env.VERDICT_KEEP_INFRA === '1') return;
  await run('bash', [path.join(root, 'infra/local/down'), ...started]);
}

module.exports = {
  root,
  node22,
  infraDir,
  log,
  run,
  withLauncherPipe,
  whenLauncherGone,
  portHolder,
  portIsFree,
  watchParent,
  readEnvFile,
  readInfraEnv,
  provisionInfra,
  stopInfra,
};
