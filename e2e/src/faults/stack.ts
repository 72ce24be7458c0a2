/**
 * The Verdict a fault run breaks: the distributed mode (`node scripts/run.cjs start-distributed`, every
 * service on a random port) or the embedded one (`npm start` on a data folder of its own), and the local
 * servers (infra/local) it runs on. Pids come from the launcher's `started <name> (pid N)` lines, so a
 * service the launcher restarts is found again by its newest line.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DISTRIBUTED_SERVICES, randomPort, repoRoot, startProcess, type RunningProcess } from '../processes';

export const SERVICES = DISTRIBUTED_SERVICES;
export type ServiceName = (typeof SERVICES)[number];

const PORT_VARIABLES: Record<ServiceName, string> = {
  gateway: 'PORT',
  'test-results': 'VERDICT_TEST_RESULTS_PORT',
  'test-results-projector': 'VERDICT_TEST_RESULTS_PROJECTOR_PORT',
  'manual-testing': 'VERDICT_MANUAL_TESTING_PORT',
  webhooks: 'VERDICT_WEBHOOKS_PORT',
  analytics: 'VERDICT_ANALYTICS_PORT',
};

export const INFRA = ['postgres', 'redis', 'kafka', 'apicurio'] as const;
export type InfraName = (typeof INFRA)[number];

// Generous: on a shared machine of two cores, a start has taken minutes.
const READY_TIMEOUT_MS = 300_000;

/** What both modes give the suite: where the gateway is, its admin key, and which ports answer /readyz. */
export interface Target {
  mode: 'distributed' | 'embedded';
  baseUrl: string;
  adminKey: string;
  /** Every process's /readyz port (one for the embedded mode). */
  readyPorts(): number[];
  output(): string;
  stop(): Promise<void>;
}

/** Settings both modes run with: loopback receivers allowed, webhook retries within a fault window. */
function commonEnv(): NodeJS.ProcessEnv {
  return {
    LOG_LEVEL: 'warn',
    VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    VERDICT_WEBHOOK_RETRY_DELAYS: '1000,2000,5000,10000',
    // Each shard says where it comes from (X-Forwarded-For), so the per-address limit is per shard.
    VERDICT_TRUST_PROXY: 'loopback',
  };
}

export interface DistributedTarget extends Target {
  mode: 'distributed';
  launcher: RunningProcess;
  ports: Record<ServiceName, number>;
  /** The newest pid the launcher reported for a service. */
  pidOf(service: ServiceName): number | undefined;
  /** How many times the launcher has started a service. */
  startsOf(service: ServiceName): number;
  /** Whether the launcher is still running (today it stops everything when one service dies). */
  alive(): boolean;
  /** Starts the launcher again on the same ports (a hand, when it did not bring a service back itself). */
  relaunch(): Promise<void>;
}

export async function startDistributed(): Promise<DistributedTarget> {
  const ports = Object.fromEntries(SERVICES.map((name) => [name, randomPort()])) as Record<
    ServiceName,
    number
  >;
  const adminKey = `faults-admin-${randomBytes(12).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...commonEnv(),
    ...Object.fromEntries(SERVICES.map((name) => [PORT_VARIABLES[name], String(ports[name])])),
    VERDICT_ADMIN_KEY: adminKey,
    VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
  };
  const launch = () =>
    startProcess(process.execPath, [path.join(repoRoot, 'scripts/run.cjs'), 'start-distributed'], env, {
      detached: true,
    });
  let earlier = '';
  const target: DistributedTarget = {
    mode: 'distributed',
    launcher: launch(),
    ports,
    baseUrl: `http://127.0.0.1:${ports.gateway}`,
    adminKey,
    readyPorts: () => SERVICES.map((name) => ports[name]),
    output: () => earlier + target.launcher.output(),
    pidOf(service) {
      const lines = [...target.output().matchAll(new RegExp(`started ${service} \\(pid (\\d+)\\)`, 'g'))];
      const last = lines.at(-1)?.[1];
      return last === undefined ? undefined : Number(last);
    },
    startsOf: (service) =>
      [...target.output().matchAll(new RegExp(`started ${service} \\(pid \\d+\\)`, 'g'))].length,
    alive: () => target.launcher.child.exitCode === null && target.launcher.child.signalCode === null,
    async relaunch() {
      if (target.alive()) await target.stop();
      earlier = target.output();
      target.launcher = launch();
      await target.launcher.waitFor('Verdict is running (distributed mode)', READY_TIMEOUT_MS);
    },
    async stop() {
      if (!target.alive()) return;
      const stopped = target.launcher.stop('SIGINT');
      const killed = setTimeout(() => signalGroup(target.launcher, 'SIGKILL'), 30_000);
      await stopped;
      clearTimeout(killed);
    },
  };
  try {
    await target.launcher.waitFor('Verdict is running (distributed mode)', READY_TIMEOUT_MS);
  } catch (error) {
    await target.stop();
    throw error;
  }
  return target;
}

export interface EmbeddedTarget extends Target {
  mode: 'embedded';
  dataDir: string;
  /** kill -9 of `npm start` and the Verdict under it (its whole process group), mid-whatever. */
  crash(): Promise<void>;
  /** `npm start` again on the same port and data folder; resolves once it serves. */
  restart(): Promise<void>;
}

export async function startEmbedded(): Promise<EmbeddedTarget> {
  const port = randomPort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-faults-'));
  const launch = () =>
    startProcess(
      process.execPath,
      [path.join(repoRoot, 'scripts/run.cjs'), 'start'],
      { ...commonEnv(), PORT: String(port), VERDICT_DATA_DIR: dataDir },
      { detached: true },
    );
  let process_ = launch();
  let earlier = '';
  try {
    await process_.waitFor(`http://localhost:${port}`, READY_TIMEOUT_MS);
  } catch (error) {
    signalGroup(process_, 'SIGKILL');
    throw error;
  }
  const adminKey = /Admin key:\s+(\S+)/.exec(process_.output())?.[1];
  if (!adminKey) throw new Error(`npm start printed no admin key:\n${process_.output()}`);
  return {
    mode: 'embedded',
    baseUrl: `http://127.0.0.1:${port}`,
    adminKey,
    dataDir,
    readyPorts: () => [port],
    output: () => earlier + process_.output(),
    async crash() {
      signalGroup(process_, 'SIGKILL');
      await process_.exited;
      // As a supervisor does, the start again waits for the whole group to be gone, not only its leader
      // (up to 5 s: an orphan nobody collects stays a zombie, which the data folder's lock passes over).
      for (let waited = 0; groupAlive(process_) && waited < 5_000; waited += 50) await sleep(50);
    },
    async restart() {
      earlier += process_.output();
      process_ = launch();
      await process_.waitFor(`http://localhost:${port}`, READY_TIMEOUT_MS);
    },
    /** Stops it and removes its data folder. */
    async stop() {
      if (process_.child.exitCode === null && process_.child.signalCode === null) {
        await process_.stop('SIGTERM');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether any process of the group `running` leads is left (a zombie included). */
function groupAlive(running: RunningProcess): boolean {
  try {
    process.kill(-(running.child.pid as number), 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(running: RunningProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-(running.child.pid as number), signal);
  } catch {
    // Already gone.
  }
}

/** `infra/local/<command> <names…>`; rejects with its output when it fails. */
export function infra(command: 'up' | 'down' | 'status', names: readonly InfraName[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(repoRoot, 'infra/local', command),
      [...names],
      { cwd: repoRoot, timeout: 300_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`infra/local/${command} ${names.join(' ')} failed: ${stderr}${stdout}`));
        else resolve(stdout);
      },
    );
  });
}

/** Whether every port answers /readyz with 200. */
export async function allReady(ports: readonly number[]): Promise<boolean> {
  const answers = await Promise.all(
    ports.map((port) =>
      fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status === 200,
        () => false,
      ),
    ),
  );
  return answers.every(Boolean);
}
