/**
 * Finding and reading the reports the CLI imports: files named by paths or globs, the kind of a file by
 * its content (JUnit XML or Playwright's JSON), and the attachments a Playwright report names by path.
 */
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { usageError } from './exitCodes';

/**
 * A pattern as the folder it starts from (its leading segments without glob characters) and the rest:
 * the glob library matches only below its working folder, and a pattern may reach above it (`../out/*.xml`).
 */
function splitPattern(absolute: string): { base: string; rest: string } {
  const segments = absolute.split(/[\\/]/);
  const firstGlob = segments.findIndex((segment) => /[*?[\]{}!()]/.test(segment));
  const at = firstGlob === -1 ? segments.length - 1 : firstGlob;
  return { base: segments.slice(0, at).join('/') || '/', rest: segments.slice(at).join('/') };
}

/** Files named by paths or globs, each once, in a stable order; a pattern that matches nothing is an error. */
export async function expandFiles(patterns: readonly string[], cwd: string): Promise<string[]> {
  const found = new Set<string>();
  for (const pattern of patterns) {
    const literal = path.resolve(cwd, pattern);
    const asFile = await stat(literal).catch(() => undefined);
    if (asFile?.isFile()) {
      found.add(literal);
      continue;
    }
    const { base, rest } = splitPattern(path.resolve(cwd, pattern));
    const matches = await glob(rest, {
      cwd: base,
      absolute: true,
      onlyFiles: true,
      ignore: ['**/node_modules/**'],
    });
    if (matches.length === 0) throw usageError(`no file matches ${pattern}`);
    for (const match of matches.sort()) found.add(path.resolve(match));
  }
  return [...found];
}

export type ReportKind = 'junit' | 'playwright';

/** The kind of report a file holds, by its first bytes; undefined for anything else. */
export async function reportKindOf(file: string): Promise<ReportKind | undefined> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8_192), 0, 8_192, 0);
    const head = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    if (/<testsuites?[\s>/]/.test(head)) return 'junit';
    if (
      /^\s*\{/.test(head) &&
      /"config"\s*:/.test(head) &&
      /"suites"|"stats"/.test(await readFile(file, 'utf8'))
    ) {
      return 'playwright';
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Reports written by a command since it started: JUnit XML or Playwright JSON under `cwd`. */
export async function reportsWrittenSince(cwd: string, since: number): Promise<string[]> {
  const candidates = await glob(['**/*.xml', '**/*.json'], {
    cwd,
    absolute: true,
    onlyFiles: true,
    ignore: ['**/node_modules/**', '**/.git/**', '**/.verdict/**'],
    deep: 6,
  });
  const written: string[] = [];
  for (const file of candidates.sort()) {
    const info = await stat(file).catch(() => undefined);
    // mtime has a coarse resolution on some file systems: a second of slack.
    if (!info || info.mtimeMs < since - 1_000 || info.size === 0) continue;
    if ((await reportKindOf(file).catch(() => undefined)) !== undefined) written.push(file);
  }
  return written;
}

/** A ciRunId that names these exact reports: importing them again finds the same run. */
export async function digestOf(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files)
    hash.update(
      createHash('sha256')
        .update(await readFile(file))
        .digest(),
    );
  return hash.digest('hex').slice(0, 32);
}

export interface PlaywrightAttachment {
  name: string;
  contentType: string;
  /** As the report writes it: the artifact's resultRef, which the import links by. */
  path: string;
}

interface ReportNode {
  suites?: ReportNode[];
  specs?: {
    tests?: { results?: { attachments?: { name?: string; contentType?: string; path?: string }[] }[] }[];
  }[];
}

/** Every attachment a Playwright JSON report names by path (screenshots, videos, traces), each once. */
export function attachmentsOf(report: { suites?: ReportNode[] }): PlaywrightAttachment[] {
  const found = new Map<string, PlaywrightAttachment>();
  const visit = (suite: ReportNode) => {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests ?? [])
        for (const result of test.results ?? [])
          for (const attachment of result.attachments ?? []) {
            if (typeof attachment.path !== 'string' || typeof attachment.name !== 'string') continue;
            found.set(JSON.stringify([attachment.path, attachment.name]), {
              name: attachment.name,
              contentType: attachment.contentType || 'application/octet-stream',
              path: attachment.path,
            });
          }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites ?? []) visit(suite);
  return [...found.values()];
}
