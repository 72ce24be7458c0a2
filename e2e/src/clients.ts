/**
 * FOR TESTS ONLY: what the tests of the packages in clients/ share: a Verdict started as a user starts it
 * (`npm start`, embedded, its own data folder and port), and a scratch project that installs packages
 * from their `npm pack` tarballs, as a user's npm installs them from the registry.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomPort, repoRoot, startProcess, type RunningProcess } from './processes';

export interface EmbeddedVerdict {
  url: string;
  token: string;
  project: string;
  dataDir: string;
  process: RunningProcess;
  /** Stops the process (SIGTERM, graceful) and resolves with its exit code. */
  stop(): Promise<number | null>;
  /** Starts it again on the same port and data folder. */
  restart(): Promise<void>;
}

/**
 * `npm start` on a free port and a fresh data folder; resolves once it answers. `nice` runs it at that
 * lower priority (a bench measuring a test runner beside it: in CI, Verdict has a machine of its own).
 */
export async function startVerdict(options: { nice?: number } = {}): Promise<EmbeddedVerdict> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-data-'));
  const port = randomPort();
  const url = `http://localhost:${port}`;
  const start = [process.execPath, path.join(repoRoot, 'scripts/run.cjs'), 'start'];
  const [command, ...args] = options.nice ? ['nice', '-n', String(options.nice), ...start] : start;
  const launch = () =>
    startProcess(command as string, args, {
      PORT: String(port),
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
  const verdict: EmbeddedVerdict = {
    url,
    token: '',
    project: '',
    dataDir,
    process: launch(),
    stop: () => verdict.process.stop(),
    async restart() {
      verdict.process = launch();
      await verdict.process.waitFor(url, 120_000);
    },
  };
  await verdict.process.waitFor(url, 120_000);
  verdict.token = /Token:\s+(svc_pat_\S+)/.exec(verdict.process.output())?.[1] ?? '';
  verdict.project = /Project id:\s+(\S+)/.exec(verdict.process.output())?.[1] ?? '';
  if (!verdict.token || !verdict.project)
    throw new Error(`npm start printed no token:\n${verdict.process.output()}`);
  return verdict;
}

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * A scratch project with these client packages installed from their tarballs (packed as built: npm test
 * builds them first), and these other packages from the registry (or npm's cache).
 */
export function scratchProject(
  prefix: string,
  clients: readonly string[],
  registry: readonly string[],
): string {
  const scratch = mkdtempSync(path.join(tmpdir(), prefix));
  const tarballs = clients.map((name) => {
    const dir = path.join(repoRoot, 'clients', name);
    if (!existsSync(path.join(dir, 'dist'))) {
      throw new Error(`clients/${name} is not built: run \`npm run build:clients\` (npm test builds it)`);
    }
    const [packed] = JSON.parse(
      npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], dir),
    ) as {
      filename: string;
    }[];
    if (!packed) throw new Error(`npm pack made no tarball of clients/${name}`);
    return path.join(scratch, packed.filename);
  });
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'user-project', private: true }));
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs, ...registry], scratch);
  return scratch;
}

/** The version of a package the repository itself installed, so a scratch project takes it from npm's cache. */
export function installedVersion(name: string): string {
  const manifest = readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
}

/** Debian's Chromium, which `infra/local/up` installs when it is missing (Playwright cannot download its own). */
export function chromiumPath(): string {
  const found = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => existsSync(candidate));
  if (!found) throw new Error('Chromium is missing: infra/local/up installs it (apt-get install chromium)');
  return found;
}
