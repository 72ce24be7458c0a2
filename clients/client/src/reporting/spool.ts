/**
 * The spool: what a reporter could not send, kept in a file to send later (`verdict replay <file>`).
 * NDJSON, one entry a line, appended as things fail, so a crash loses at most the line being written:
 *
 *   {"verdictSpool":1,"baseUrl":…,"project":…,"start":{…}}      the run (its ciRunId names it again)
 *   {"result":{…},"files":[{"name","contentType","path"}]}      a result and the files to attach to it
 *   {"coverage":{…}}
 *   {"finish":{…}}
 *
 * Files are copied beside the spool (`<spool>.files/`): a test runner empties its output folder on its
 * next run. Replaying sends everything with the same identities (the ciRunId, each result's key, each
 * artifact's content), so what had already reached Verdict counts as a duplicate, never twice. The token
 * is never written: replay takes it from its own settings.
 */
import { copyFile, mkdir, appendFile, writeFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CoverageBody, FinishRunBody, ResultItem, StartRunBody } from '@verdict/client';

export const SPOOL_VERSION = 1;

/** A file to attach to a result: on disk, or bytes the runner kept in memory. */
export interface PendingFile {
  name: string;
  contentType: string;
  path?: string;
  body?: Uint8Array;
}

export interface SpoolHeader {
  verdictSpool: typeof SPOOL_VERSION;
  baseUrl: string;
  project: string;
  start: StartRunBody;
}

export type SpoolEntry =
  | { result: ResultItem; files: { name: string; contentType: string; path: string }[] }
  | { coverage: CoverageBody }
  | { finish: FinishRunBody };

export interface Spool {
  header: SpoolHeader;
  entries: SpoolEntry[];
}

/** A file name that any file system takes, from a ciRunId or an attachment's name. */
const safeName = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120) || 'file';

export interface SpoolWriter {
  /** The spool's path (the file exists once something was written). */
  readonly file: string;
  writeResult(item: ResultItem, files: readonly PendingFile[]): Promise<void>;
  writeCoverage(coverage: CoverageBody): Promise<void>;
  writeFinish(finish: FinishRunBody): Promise<void>;
  /** Entries written so far (results, coverage, finish). */
  readonly written: { results: number; other: number; files: number };
}

/**
 * A spool for one reporter process, created with its header on the first write. Writes are queued, one
 * after another, so lines never interleave.
 *
 * @example const spool = spoolWriter({ dir: '.verdict/spool', header, shard: 1 }); await spool.writeResult(item, files);
 */
export function spoolWriter(options: { dir: string; header: SpoolHeader; label?: string }): SpoolWriter {
  const { header } = options;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const base = safeName(
    `${header.start.ciRunId ?? 'run'}${options.label ? `-${options.label}` : ''}-${stamp}`,
  );
  const file = path.resolve(options.dir, `${base}-${process.pid}.ndjson`);
  const filesDir = `${file}.files`;
  const written = { results: 0, other: 0, files: 0 };
  let opened: Promise<void> | undefined;
  let queue: Promise<void> = Promise.resolve();

  const open = () =>
    (opened ??= (async () => {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${JSON.stringify(header)}\n`, { flag: 'wx' });
    })());

  const serially = (write: () => Promise<void>): Promise<void> => {
    const next = queue.then(async () => {
      await open();
      await write();
    });
    // One failed write (a full disk) must not stop the writes after it from being tried.
    queue = next.catch(() => undefined);
    return next;
  };

  async function keep(files: readonly PendingFile[]) {
    const kept: { name: string; contentType: string; path: string }[] = [];
    for (const pending of files) {
      await mkdir(filesDir, { recursive: true });
      const target = path.join(filesDir, `${written.files}-${safeName(pending.name)}`);
      if (pending.body) await writeFile(target, pending.body);
      else if (pending.path) await copyFile(pending.path, target);
      else continue;
      written.files += 1;
      kept.push({ name: pending.name, contentType: pending.contentType, path: target });
    }
    return kept;
  }

  const line = (entry: SpoolEntry) => appendFile(file, `${JSON.stringify(entry)}\n`);

  return {
    file,
    written,
    writeResult: (item, files) =>
      serially(async () => {
        // A file that is gone (deleted by the test itself) is left out; the result is what matters.
        const kept = await keep(files).catch(() => []);
        await line({ result: item, files: kept });
        written.results += 1;
      }),
    writeCoverage: (coverage) =>
      serially(async () => {
        await line({ coverage });
        written.other += 1;
      }),
    writeFinish: (finish) =>
      serially(async () => {
        await line({ finish });
        written.other += 1;
      }),
  };
}

export class SpoolFormatError extends Error {}

/**
 * Reads a spool; a line that is not one of its entries is named by its number.
 *
 * @example const { header, entries } = await readSpool('.verdict/spool/gh-42-….ndjson');
 */
export async function readSpool(file: string): Promise<Spool> {
  const text = await readFile(file, 'utf8');
  const lines = text.split('\n');
  const parse = (index: number): unknown => {
    try {
      return JSON.parse(lines[index] ?? '') as unknown;
    } catch {
      throw new SpoolFormatError(`${file}:${index + 1}: not JSON`);
    }
  };
  const header = parse(0) as Partial<SpoolHeader> | null;
  if (header?.verdictSpool !== SPOOL_VERSION || typeof header.project !== 'string' || !header.start) {
    throw new SpoolFormatError(`${file} is not a Verdict spool (its first line names no run)`);
  }
  const entries: SpoolEntry[] = [];
  let last = lines.length - 1;
  while (last > 0 && (lines[last] ?? '').trim() === '') last -= 1;
  for (let index = 1; index <= last; index += 1) {
    if ((lines[index] ?? '').trim() === '') continue;
    let entry: Record<string, unknown> | null;
    try {
      entry = parse(index) as Record<string, unknown> | null;
    } catch (error) {
      // The last line may be cut short by a crash while it was written: what came before still counts.
      if (index === last) break;
      throw error;
    }
    if (
      !entry ||
      typeof entry !== 'object' ||
      !('result' in entry || 'coverage' in entry || 'finish' in entry)
    ) {
      throw new SpoolFormatError(`${file}:${index + 1}: not a spool entry`);
    }
    entries.push(entry as SpoolEntry);
  }
  return { header: header as SpoolHeader, entries };
}
