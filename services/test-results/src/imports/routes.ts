/**
 * The import routes of API.md: a Playwright JSON report or JUnit XML becomes one finished run, through
 * the ordinary ingest use cases.
 */
import { createHash } from 'node:crypto';
import express from 'express';
import {
  MAX_RESULTS_PER_BATCH,
  testResultsImportRoutes,
  type ArtifactRecord,
  type ImportQuery,
  type ResultItem,
  type RunSummary,
  type StartRunRequest,
} from '@verdict/contracts';
import {
  bindRoutes,
  ConflictError,
  newId,
  reply,
  storable,
  ValidationError,
  type BlobStore,
  type BoundRoute,
  type Clock,
  type ProjectContext,
} from '@verdict/platform';
import type { Ingest } from '../runs/ingest';
import { distinctResults } from '../runs/results';
import { parseJUnitXml } from './junit';
import { parsePlaywrightReport, type PendingAttachment } from './playwright';
import { decodeXml } from './xml';

export interface ImportRoutesOptions {
  ingest: Ingest;
  blobs: BlobStore;
  artifactMaxBytes: number;
  /** The start of a JUnit report that states none. */
  clock: Clock;
}

/** Bytes: the XML's own declaration may name its encoding (decodeXml), which a text parser would ignore. */
const readXml = express.raw({ type: ['application/xml', 'text/xml'], limit: '10mb' });

interface ParsedReport {
  digest: string;
  start: Omit<StartRunRequest, 'ciRunId'>;
  durationMs?: number;
  results: ResultItem[];
  attachments: PendingAttachment[];
}

/**
 * Turns a parsed report into one finished run through the ordinary ingest use cases. The run's ciRunId
 * defaults to the report's digest, so replaying the same import finds its run instead of making another.
 * With `finish=false` the run stays running, for more reports under the same ciRunId, artifacts, coverage
 * and the client's own finish.
 */
async function importReport(
  options: ImportRoutesOptions,
  query: ImportQuery,
  ctx: ProjectContext,
  report: ParsedReport,
) {
  const { projectId } = ctx;
  const ciRunId = query.ciRunId ?? `import-${report.digest}`;
  const start: StartRunRequest = {
    ...report.start,
    ciRunId,
    shard: { current: 1, total: 1 },
    ...(query.branch ? { branch: query.branch } : {}),
    ...(query.environment ? { environment: query.environment } : {}),
    ...(query.commitSha ? { commit: { sha: query.commitSha } } : {}),
  };
  const context = { correlationId: ctx.correlationId, defaultBranch: ctx.identity.defaultBranch ?? null };
  const { run, created } = await options.ingest
    .startRun(projectId, start, context)
    .catch((error: unknown) => {
      // The import joins as a run's only shard; a run of several shards under that ciRunId cannot take it.
      if (error instanceof ConflictError && error.code === 'CONFLICT') {
        throw new ConflictError(
          `ciRunId ${ciRunId} names a run of several shards: import this report under another ciRunId`,
        );
      }
      throw error;
    });
  if (run.status === 'finished') {
    // The same report imported again finds every result recorded: its run, as a replay. Any other
    // report under a finished run's ciRunId would be dropped: refused, as results for a finished run are.
    const { distinct } = distinctResults(report.results);
    if ((await options.ingest.recordedCount(run.id, distinct)) < distinct.length) {
      throw new ConflictError(
        `Run ${run.id} (ciRunId ${ciRunId}) is finished: import this report under another ciRunId`,
        'RUN_FINISHED',
      );
    }
    return { run, created: false };
  }
  const results = await linkAttachments(options, projectId, run.id, report, context);
  for (let i = 0; i < results.length; i += MAX_RESULTS_PER_BATCH) {
    await options.ingest.addResults(projectId, run.id, results.slice(i, i + MAX_RESULTS_PER_BATCH), context);
  }
  if (query.finish === false) return { run, created };
  const startedAt = Date.parse(run.startedAt);
  const finishedAt =
    report.durationMs !== undefined ? new Date(startedAt + report.durationMs).toISOString() : undefined;
  const finished: RunSummary = await options.ingest.finish(
    projectId,
    run.id,
    { shard: { current: 1, total: 1 }, ...(finishedAt ? { finishedAt } : {}) },
    context,
  );
  return { run: finished, created };
}

/**
 * Links each result to its attachments. Those that came with their content (base64) become artifacts of
 * the run here. Those named by a path were uploaded to the run before the import (resultRef = the path as
 * the report writes it, same name): they are found in the run's artifacts. A path nothing was uploaded for
 * is left out, as the file is on a machine this server cannot read.
 */
async function linkAttachments(
  options: ImportRoutesOptions,
  projectId: string,
  runId: string,
  report: ParsedReport,
  context: { correlationId: string | null },
): Promise<ResultItem[]> {
  const results = report.results.map((item) => ({ ...item }));
  const byPath = report.attachments.some((attachment) => !attachment.body && attachment.path)
    ? uploadedByPath(await options.ingest.artifactsOf(runId))
    : new Map<string, string>();
  for (const attachment of report.attachments) {
    const target = results[attachment.resultIndex];
    if (!target) continue;
    const artifactId = attachment.body
      ? await storeEmbedded(options, projectId, runId, { ...attachment, body: attachment.body }, context)
      : attachment.path
        ? byPath.get(pathKey(attachment.path, attachment.name))
        : undefined;
    if (!artifactId) continue;
    target.attachments = [
      ...(target.attachments ?? []),
      { name: attachment.name, contentType: attachment.contentType, artifactId },
    ];
  }
  return results;
}

const pathKey = (path: string, name: string) => JSON.stringify([path, name]);

/** The run's artifacts by (resultRef, name): the latest upload of a path wins, as a re-run's file would. */
function uploadedByPath(artifacts: readonly ArtifactRecord[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const artifact of artifacts) {
    if (artifact.resultRef !== null) found.set(pathKey(artifact.resultRef, artifact.name), artifact.id);
  }
  return found;
}

async function storeEmbedded(
  options: ImportRoutesOptions,
  projectId: string,
  runId: string,
  attachment: { name: string; contentType: string; body: string },
  context: { correlationId: string | null },
): Promise<string> {
  const id = newId();
  const key = `${projectId}/${runId}/${id}`;
  const bytes = Buffer.from(attachment.body, 'base64');
  const stored = await options.blobs.put(key, bytes, {
    contentType: attachment.contentType,
    maxBytes: options.artifactMaxBytes,
    filename: attachment.name,
  });
  await options.ingest.recordArtifact(
    projectId,
    runId,
    { id, name: attachment.name, contentType: attachment.contentType, size: stored.size, blobKey: key },
    context,
  );
  return id;
}

const digestOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** Answers the run of an import: 201 when this import created it, 200 when it replayed into it. */
const answerOf = ({ run, created }: { run: RunSummary; created: boolean }) =>
  created ? reply.created(run) : run;

/**
 * @example registerRoutes(router, importRoutes({ ingest, blobs, artifactMaxBytes, clock }));
 */
export function importRoutes(options: ImportRoutesOptions): BoundRoute[] {
  return bindRoutes(testResultsImportRoutes, {
    'post /{projectId}/imports/playwright': async ({ query }, ctx) => {
      const report: unknown = ctx.req.body;
      if (report === undefined || typeof report !== 'object') {
        throw new ValidationError('body: expected the JSON written by Playwright’s json reporter');
      }
      const parsed = parsePlaywrightReport(report);
      return answerOf(
        await importReport(options, query, ctx, {
          digest: digestOf(JSON.stringify(report)),
          start: {
            framework: parsed.run.framework,
            ...(parsed.run.startedAt ? { startedAt: parsed.run.startedAt } : {}),
          },
          ...(parsed.run.durationMs !== undefined ? { durationMs: parsed.run.durationMs } : {}),
          results: parsed.results,
          attachments: parsed.attachments,
        }),
      );
    },
    'post /{projectId}/imports/junit': {
      before: [readXml],
      handle: async ({ query }, ctx) => {
        const { req } = ctx;
        const xml = Buffer.isBuffer(req.body) ? decodeXml(req.body, req.get('content-type')) : '';
        if (xml.trim() === '') {
          throw new ValidationError('body: expected JUnit XML (Content-Type: application/xml)');
        }
        const parsed = parseJUnitXml(xml, { startedAt: options.clock.now().toISOString() });
        return answerOf(
          await importReport(options, query, ctx, {
            digest: digestOf(xml),
            start: {
              ...(parsed.run.framework ? { framework: parsed.run.framework } : {}),
              ...(parsed.run.startedAt ? { startedAt: parsed.run.startedAt } : {}),
            },
            ...(parsed.run.durationMs !== undefined ? { durationMs: parsed.run.durationMs } : {}),
            // XML may carry a NUL or a lone surrogate (as a character or a reference), which PostgreSQL
            // cannot store: replaced with U+FFFD, as in JSON bodies.
            results: parsed.results.map((item) => storable(item) as ResultItem),
            attachments: [],
          }),
        );
      },
    },
  });
}
