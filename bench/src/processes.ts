// What the benches that run Verdict's processes share: child processes on free ports with their output in
// .bench/, and provisioning through the admin API.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { sleep } from './table';

export const repoRoot = path.resolve(__dirname, '../..');

// A bench that dies (an unexpected answer, Ctrl-C) must not leave servers behind that load the next run.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** scripts/bundle.cjs: how the launchers build and run the service processes. */
interface Bundler {
  bundleEntries(entries: Record<string, string>): Promise<Record<string, string>>;
  SERVICE_NODE_FLAGS: string[];
  SERVICE_ENV: Record<string, string>;
}
const bundler = createRequire(__filename)('../../scripts/bundle.cjs') as Bundler;
const bundles = new Map<string, Promise<string>>();

/** A service folder under services/ whose src/main.ts starts it as a process. */
export type ServiceName = 'gateway' | 'test-results' | 'manual-testing' | 'webhooks' | 'analytics';

/**
 * Starts a service as `npm run start:distributed` runs it: from its bundle (built once per bench run), with
 * the launcher's node flags and environment. `flags` go before them (e.g. to profile).
 */
export async function startService(
  name: string,
  service: ServiceName,
  env: NodeJS.ProcessEnv,
  options: { flags?: string[]; port?: number } = {},
): Promise<Child> {
  let bundle = bundles.get(service);
  if (bundle === undefined) {
    bundle = bundler
      .bundleEntries({ [service]: `services/${service}/src/main.ts` })
      .then((built) => built[service] as string);
    bundles.set(service, bundle);
  }
  const args = [...(options.flags ?? []), ...bundler.SERVICE_NODE_FLAGS, await bundle];
  return startNode(name, args, { ...bundler.SERVICE_ENV, ...env }, options.port);
}

export interface Child {
  process: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the OS picks it; the child binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function waitUntilReady(child: ChildProcess, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${url}: the process exited`);
    const status = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(200);
  }
  throw new Error(`${url} was not ready within ${timeoutMs / 1000} s`);
}

/** SIGTERM, SIGKILL after 10 s: a stuck child must not keep the bench from finishing. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts a Node 22 child from the repository root; its output goes to a file under .bench/, not through a
 * pipe into this process, which is busy generating load.
 */
export async function startNode(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  port?: number,
): Promise<Child> {
  port ??= await freePort();
  const logDir = path.join(repoRoot, '.bench');
  mkdirSync(logDir, { recursive: true });
  const log = openSync(path.join(logDir, `${name}.log`), 'w');
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  try {
    await waitUntilReady(child, `http://127.0.0.1:${port}/readyz`);
  } catch (error) {
    await stopProcess(child);
    throw new Error(`${name} did not start (see .bench/${name}.log)`, { cause: error });
  }
  return { process: child, port, stop: () => stopProcess(child) };
}

/** VERDICT_BENCH_CPU_PROF=<dir>: the node flags that write a V8 CPU profile of a child there, for its hot spots. */
export function profileFlags(): string[] {
  const dir = process.env.VERDICT_BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

export type Admin = (method: string, urlPath: string, body?: unknown) => Promise<unknown>;

export function adminClient(port: number, adminKey: string): Admin {
  return async (method, urlPath, body) => {
    const response = await fetch(`http://127.0.0.1:${port}/admin/v1${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const answer: unknown = await response.json();
    if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
}

/** Runs `task` for 0…count-1 with at most `concurrency` in flight; results in index order. */
export async function inParallel<T>(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) results[i] = await task(i);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
