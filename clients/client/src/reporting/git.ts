/**
 * The branch and commit of the working copy, for runs outside a CI service that tells them. Asked of the
 * `git` command once, with a short timeout; no Git (or no repository) is no information, never an error.
 */
import { execFileSync } from 'node:child_process';

export interface GitInfo {
  branch?: string;
  sha?: string;
  message?: string;
  author?: string;
}

function git(args: string[], cwd: string): string | undefined {
  try {
    const out = execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2_000,
    }).trim();
    return out === '' ? undefined : out;
  } catch {
    return undefined;
  }
}

/**
 * What Git says of HEAD in `cwd`.
 *
 * @example gitInfo(process.cwd()) // { branch: 'main', sha: '4f2c…', message: 'Fix the cart', author: 'Ada' }
 */
export function gitInfo(cwd: string): GitInfo {
  const head = git(['log', '-1', '--format=%H%n%an%n%s'], cwd);
  if (!head) return {};
  const [sha, author, message] = head.split('\n');
  const branch = git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd);
  return {
    ...(sha ? { sha } : {}),
    ...(author ? { author } : {}),
    ...(message ? { message } : {}),
    // A detached HEAD (as CI checks out) has no branch name.
    ...(branch && branch !== 'HEAD' ? { branch } : {}),
  };
}
