import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './processes';

const run = promisify(execFile);

/** The pinned schemathesis of the fuzzing run, and its configuration and hooks. */
export const SCHEMATHESIS_DIR = path.join(repoRoot, 'e2e', 'schemathesis');

/**
 * The `st` of a Python virtual environment holding exactly e2e/schemathesis/requirements.txt, created on
 * first use (python3 -m venv, then pip from PyPI) under node_modules/.cache, one per version of the file:
 * `npm test` on a fresh machine needs only python3. A marker written last tells a finished install from
 * one that was cut short, which is removed and made again.
 *
 * @example const st = await ensureSchemathesis();
 */
export async function ensureSchemathesis(): Promise<string> {
  const requirements = path.join(SCHEMATHESIS_DIR, 'requirements.txt');
  const digest = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12);
  const venv = path.join(repoRoot, 'node_modules', '.cache', 'verdict-schemathesis', digest);
  const st = path.join(venv, 'bin', 'st');
  const done = path.join(venv, '.installed');
  if (existsSync(done)) return st;
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(path.dirname(venv), { recursive: true });
  try {
    await run('python3', ['-m', 'venv', venv]);
  } catch (error) {
    throw new Error(
      `the fuzzing run needs python3 with venv (python3 -m venv): ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  await run(
    path.join(venv, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', '--no-deps', '--requirement', requirements],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  writeFileSync(done, `${new Date().toISOString()}\n`);
  return st;
}
