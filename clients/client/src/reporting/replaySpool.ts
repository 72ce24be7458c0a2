/**
 * Sends a spool (spool.ts) to Verdict: joins its run again by its ciRunId, uploads each result's files,
 * sends the results, the coverage and the finish. Everything carries the identity it had when it was
 * first sent, so what had already arrived counts as a duplicate and nothing is counted twice; replaying a
 * spool again is harmless while its run is still running.
 */
import type { VerdictClient } from '@verdict/client';
import type { ResultItem } from '@verdict/client';
import { resultRefOf } from './resultItems';
import { readSpool, type SpoolEntry } from './spool';

export interface ReplayProgress {
  results: number;
  totalResults: number;
  files: number;
  bytes: number;
}

export interface ReplayOutcome {
  runId: string;
  /** The run's status after the replay (`finished` when the spool held the finish of its last shard). */
  status: string;
  accepted: number;
  duplicates: number;
  files: number;
  bytes: number;
  /** Files named by the spool that could not be read (deleted since): their results went without them. */
  missingFiles: string[];
}

type ResultEntry = Extract<SpoolEntry, { result: unknown }>;

/**
 * Replays a spool file with a client (its own token; the spool's project unless the client names one).
 *
 * @example const outcome = await replaySpool(client, '.verdict/spool/gh-42-….ndjson', { onProgress: console.log });
 */
export async function replaySpool(
  client: VerdictClient,
  file: string,
  options: { onProgress?: (progress: ReplayProgress) => void; batchSize?: number; project?: string } = {},
): Promise<ReplayOutcome> {
  const { header, entries } = await readSpool(file);
  const call = { project: options.project ?? client.project ?? header.project };
  const results = entries.filter((entry): entry is ResultEntry => 'result' in entry);
  const progress: ReplayProgress = { results: 0, totalResults: results.length, files: 0, bytes: 0 };
  const missingFiles: string[] = [];
  const { run } = await client.startRun(header.start, call);
  let status = run.status;
  let accepted = 0;
  let duplicates = 0;
  const batchSize = options.batchSize ?? 500;
  for (let i = 0; i < results.length; i += batchSize) {
    const batch: ResultItem[] = [];
    for (const { result, files } of results.slice(i, i + batchSize)) {
      const attachments = [...(result.attachments ?? [])];
      for (const pending of files) {
        try {
          const artifact = await client.uploadArtifact(
            run.id,
            {
              path: pending.path,
              name: pending.name,
              contentType: pending.contentType,
              resultRef: resultRefOf(result),
            },
            call,
          );
          attachments.push({ name: pending.name, contentType: pending.contentType, artifactId: artifact.id });
          progress.files += 1;
          progress.bytes += artifact.size;
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
          missingFiles.push(pending.path);
        }
        options.onProgress?.({ ...progress });
      }
      batch.push(attachments.length > 0 ? { ...result, attachments } : result);
    }
    const recorded = await client.addResults(run.id, batch, call);
    accepted += recorded.accepted;
    duplicates += recorded.duplicates;
    progress.results += batch.length;
    options.onProgress?.({ ...progress });
  }
  for (const entry of entries) {
    if ('coverage' in entry) await client.addCoverage(run.id, entry.coverage, call);
  }
  for (const entry of entries) {
    if ('finish' in entry) status = (await client.finishRun(run.id, entry.finish, call)).status;
  }
  return {
    runId: run.id,
    status,
    accepted,
    duplicates,
    files: progress.files,
    bytes: progress.bytes,
    missingFiles,
  };
}
