/**
 * Quarantine for the reporters (issue 32): the project's active quarantines, fetched when a run begins and
 * kept in a copy (`.verdict/quarantine.json`) for a run that cannot reach Verdict; and which failures of a
 * run they forgive. A failure is forgiven only when its test (on its platform) is quarantined for the
 * signature it failed with, as the server judges it: the same test case id and error signature functions.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorSignature } from '@verdict/contracts/errorSignature';
import { testCaseIdOf } from '@verdict/contracts/testCaseId';
import type { VerdictClient } from '@verdict/client';

/** Where the copy is kept unless told otherwise; `VERDICT_QUARANTINE_FILE`. */
export const QUARANTINE_FILE = '.verdict/quarantine.json';
const COPY_VERSION = 1;

export interface KnownQuarantine {
  id: string;
  testCaseId: string;
  /** The platform it covers; null for every one. */
  project: string | null;
  ownerId: string;
  expiresAt: string;
  signatureIds: string[];
}

export interface QuarantineList {
  quarantines: KnownQuarantine[];
  /** server: fetched now; copy: Verdict could not be reached, the copy of `fetchedAt` applies. */
  source: 'server' | 'copy';
  fetchedAt: string;
}

interface QuarantineCopy {
  version: number;
  baseUrl: string;
  project: string;
  fetchedAt: string;
  quarantines: KnownQuarantine[];
}

async function fetchAll(client: VerdictClient): Promise<KnownQuarantine[]> {
  const { items } = await client.listQuarantinedTests();
  return items.map((item) => ({
    id: item.quarantineId,
    testCaseId: item.testCaseId,
    project: item.project ?? null,
    ownerId: item.ownerId,
    expiresAt: item.expiresAt,
    signatureIds: item.signatureIds,
  }));
}

/**
 * The project's active quarantines: from Verdict (and the copy rewritten), else from the copy when it is
 * this server's and project's (those expired since dropped), else null.
 *
 * @example const list = await loadQuarantines({ client, baseUrl, project, file: '.verdict/quarantine.json', now: new Date() });
 */
export async function loadQuarantines(options: {
  client: VerdictClient;
  baseUrl: string;
  project: string;
  file: string;
  now: Date;
  log: (line: string) => void;
}): Promise<QuarantineList | null> {
  const { client, baseUrl, project, file, now } = options;
  try {
    const quarantines = await fetchAll(client);
    const copy: QuarantineCopy = {
      version: COPY_VERSION,
      baseUrl,
      project,
      fetchedAt: now.toISOString(),
      quarantines,
    };
    try {
      await mkdir(path.dirname(file), { recursive: true });
      // Written whole, then renamed: a run reading it never sees half a file.
      await writeFile(`${file}.tmp`, `${JSON.stringify(copy, null, 2)}\n`);
      await rename(`${file}.tmp`, file);
    } catch (error) {
      options.log(`the quarantine list could not be kept in ${file}: ${(error as Error).message}`);
    }
    return { quarantines, source: 'server', fetchedAt: copy.fetchedAt };
  } catch {
    let copy: QuarantineCopy;
    try {
      copy = JSON.parse(await readFile(file, 'utf8')) as QuarantineCopy;
    } catch {
      return null;
    }
    if (copy.version !== COPY_VERSION || copy.baseUrl !== baseUrl || copy.project !== project) return null;
    const active = copy.quarantines.filter((q) => Date.parse(q.expiresAt) > now.getTime());
    return { quarantines: active, source: 'copy', fetchedAt: copy.fetchedAt };
  }
}

/** A failed test of the run, as the reporter saw it: the error of its last failed attempt. */
export interface RunFailureSeen {
  file: string;
  titlePath: string[];
  project: string | null;
  error: { message: string; stack?: string | null; location?: { file: string } | null } | null;
}

export interface Forgiven {
  failure: RunFailureSeen;
  quarantine: KnownQuarantine;
}

/**
 * Which failures the quarantines forgive (test and platform quarantined, and the failure's signature one of
 * the quarantine's), and which they do not.
 *
 * @example const { forgiven, unforgiven } = judgeFailures(failures, list.quarantines, new Date());
 */
export function judgeFailures(
  failures: readonly RunFailureSeen[],
  quarantines: readonly KnownQuarantine[],
  now: Date,
): { forgiven: Forgiven[]; unforgiven: RunFailureSeen[] } {
  const forgiven: Forgiven[] = [];
  const unforgiven: RunFailureSeen[] = [];
  for (const failure of failures) {
    const testCaseId = testCaseIdOf(failure);
    const signatureId = failure.error?.message
      ? errorSignature({
          message: failure.error.message,
          stack: failure.error.stack ?? null,
          location: failure.error.location ?? null,
          testFile: failure.file,
        }).id
      : null;
    const quarantine = quarantines.find(
      (q) =>
        q.testCaseId === testCaseId &&
        (q.project === null || q.project === failure.project) &&
        Date.parse(q.expiresAt) > now.getTime() &&
        signatureId !== null &&
        q.signatureIds.includes(signatureId),
    );
    if (quarantine) forgiven.push({ failure, quarantine });
    else unforgiven.push(failure);
  }
  return { forgiven, unforgiven };
}

/** The one line a reporter prints when it turns a run green: the forgiven tests, their owners and expiries. */
export function forgivenLine(forgiven: readonly Forgiven[], list: QuarantineList): string {
  const tests = forgiven
    .map(
      ({ failure, quarantine }) =>
        `${failure.titlePath.join(' › ')}${failure.project ? ` [${failure.project}]` : ''} (owner ${quarantine.ownerId}, until ${quarantine.expiresAt.slice(0, 10)})`,
    )
    .join('; ');
  const from =
    list.source === 'copy'
      ? ` — Verdict unreachable: the quarantine list kept on ${list.fetchedAt} applies`
      : '';
  return `every failure is quarantined for its known error, the run passes: ${tests}${from}`;
}
