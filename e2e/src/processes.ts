import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../..');

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output contains `text`, rejects after `timeoutMs` or when the process exits. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Starts a command from the repository root as a user would, collecting its stdout and stderr. `detached`
 * gives it a process group of its own, as a supervisor's service has (signal it with `-child.pid`).
 */
export function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { detached?: boolean } = {},
): RunningProcess {
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: 'pipe',
    detached: options.detached ?? false,
  });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    waitFor(text, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const matches = () => (typeof text === 'string' ? output.includes(text) : text.test(output));
        const timer = setTimeout(
          () => finish(new Error(`timed out waiting for ${String(text)}; output:\n${output}`)),
          timeoutMs,
        );
        const check = () => {
          if (matches()) finish();
        };
        function finish(error?: Error) {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        }
        listeners.add(check);
        void exited.then((code) =>
          finish(matches() ? undefined : new Error(`exited with ${code}; output:\n${output}`)),
        );
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * `npm start` (`start`, with `--rebuild` when asked) or `npm run start:distributed` (`start-distributed`),
 * started exactly as npm runs them: `node scripts/run.cjs <command>`.
 */
export const startVerdict = (
  command: 'start' | 'start-distributed',
  env: NodeJS.ProcessEnv,
  args: readonly string[] = [],
) => startProcess(process.execPath, [path.join(repoRoot, 'scripts/run.cjs'), command, ...args], env);

/**
 * A free-ish port for a test process; collisions are unlikely and fail loudly. Below Linux's ephemeral
 * range (32768-60999), where the outgoing connections of every test (to PostgreSQL, Kafka, Redis) take
 * their local ports: a port drawn there was once already taken by one of them.
 */
export function randomPort(): number {
  return 20_000 + Math.floor(Math.random() * 12_000);
}

/**
 * A value of a Verdict start banner (`Project id`, `Token`, `Admin key`), or '' when it is not there.
 *
 * @example const projectId = bannerField(verdict.output(), 'Project id');
 */
export function bannerField(banner: string, name: string): string {
  return new RegExp(`${name}:\\s+(\\S+)`).exec(banner)?.[1] ?? '';
}

/** The services of the distributed mode, as its launcher names them in `started <name> (pid N)`. */
export const DISTRIBUTED_SERVICES = [
  'gateway',
  'test-results',
  'test-results-projector',
  'manual-testing',
  'webhooks',
  'analytics',
] as const;
