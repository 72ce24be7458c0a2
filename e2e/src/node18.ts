import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './processes';

// The oldest Node the published client packages support, for the tests that run them as users would.
const NODE18_VERSION = '18.20.8';
const node18Cache = path.join(repoRoot, 'node_modules', '.cache', `verdict-node-${NODE18_VERSION}`);
const node18 = path.join(node18Cache, 'node_modules', 'node', 'bin', 'node');

/** Node 18 from the npm registry's `node` package, installed once into node_modules/.cache; its path. */
export function ensureNode18(): string {
  if (!existsSync(node18)) {
    mkdirSync(node18Cache, { recursive: true });
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefix', node18Cache, `node@${NODE18_VERSION}`],
      { cwd: node18Cache, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  }
  return node18;
}
