import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomPort, repoRoot, startProcess } from './processes';

// `NODE_ENV=production npm start` on a fresh clone, as a platform team types it: the launcher's own
// `npm install` (run when its stamp is missing, as right after an `npm ci`) once left the dev dependencies
// out under that variable, and the start stopped at `sh: 1: tsx: not found`. The clone is of what is
// committed. To keep the test at about a minute, its dependencies are this checkout's, hard-linked (as
// pnpm's store does; only npm's own state files are real copies, and the install stamp is left out so
// the launcher's install runs), and its build outputs are copied: the launcher rebuilds them only when
// the committed sources differ from what they were built from.

const WORKSPACES = ['.', 'web', 'e2e', 'bench', 'contracts', 'platform', 'services', 'clients'];

/** The folders of the workspace packages that may have a node_modules of their own. */
const packageDirs = (): string[] =>
  WORKSPACES.flatMap((dir) =>
    dir === 'services' || dir === 'clients'
      ? readdirSync(path.join(repoRoot, dir)).map((name) => path.join(dir, name))
      : [dir],
  );

/**
 * `from` (a node_modules) into `to`: packages hard-linked, links of .bin as they are, npm's and the
 * launcher's state files as real copies (they are rewritten in place), caches and the install stamp left out.
 */
function linkDependencies(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  const entries = readdirSync(from, { withFileTypes: true });
  const packages = entries.filter((e) => !e.name.startsWith('.')).map((e) => path.join(from, e.name));
  if (packages.length > 0) execFileSync('cp', ['-al', ...packages, to]);
  for (const entry of entries) {
    if (!entry.name.startsWith('.') || entry.name === '.verdict-install-stamp') continue;
    if (entry.isDirectory() && entry.name !== '.bin') continue;
    cpSync(path.join(from, entry.name), path.join(to, entry.name), {
      recursive: true,
      verbatimSymlinks: true,
    });
  }
}

/** The build outputs a start needs (client packages, their generated types, the web app), copied. */
function copyBuildOutputs(to: string): void {
  const outputs = [
    'web/dist',
    ...readdirSync(path.join(repoRoot, 'clients')).flatMap((name) => [
      `clients/${name}/dist`,
      `clients/${name}/src/generated`,
    ]),
  ];
  for (const output of outputs) {
    if (existsSync(path.join(repoRoot, output)))
      cpSync(path.join(repoRoot, output), path.join(to, output), { recursive: true });
  }
}

/** This environment without npm's variables of the `npm test` that runs us: a user's shell has none. */
const withoutNpmVariables = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.keys(process.env).flatMap((key) => (key.startsWith('npm_') ? [[key, undefined]] : [])),
  );

describe('a fresh clone', () => {
  let clone: string;

  beforeEach(() => {
    clone = path.join(mkdtempSync(path.join(tmpdir(), 'verdict-clone-')), 'verdict');
    execFileSync('git', ['clone', '--quiet', repoRoot, clone]);
    for (const dir of packageDirs()) {
      const modules = path.join(repoRoot, dir, 'node_modules');
      if (existsSync(modules)) linkDependencies(modules, path.join(clone, dir, 'node_modules'));
    }
    copyBuildOutputs(clone);
  });

  afterEach(() => rmSync(path.dirname(clone), { recursive: true, force: true }));

  it('when started with NODE_ENV=production, then the launcher installs what it runs on and Verdict answers', async () => {
    const port = randomPort();
    const verdict = startProcess(
      'npm',
      ['--prefix', clone, 'start'],
      { ...withoutNpmVariables(), NODE_ENV: 'production', PORT: String(port), LOG_LEVEL: 'warn' },
      { detached: true },
    );
    try {
      await verdict.waitFor(`Verdict is running (embedded mode) at http://localhost:${port}`, 540_000);
      expect(verdict.output()).toContain('installing dependencies (npm install)');
      expect(existsSync(path.join(clone, 'node_modules', 'tsx'))).toBe(true);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      // npm, the launcher and Verdict: the whole process group of the start.
      if (verdict.child.exitCode === null && verdict.child.pid !== undefined) {
        try {
          process.kill(-verdict.child.pid, 'SIGTERM');
        } catch {
          // Gone meanwhile.
        }
      }
      await verdict.exited;
    }
  }, 600_000);
});
