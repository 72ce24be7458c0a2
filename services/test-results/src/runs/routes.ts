/**
 * The ingest routes of API.md: start, results (JSON or NDJSON), artifacts (multipart), coverage, finish.
 * Every answer comes after the events are committed: a 2xx means durable.
 */
import express, { type Request } from 'express';
import { ArtifactUploadFields, MAX_RESULTS_PER_BATCH, testResultsIngestRoutes } from '@verdict/contracts';
import {
  AppError,
  bindRoutes,
  derivedId,
  newId,
  parseStorableJson,
  receiveUpload,
  reply,
  ValidationError,
  type BlobStore,
  type BoundRoute,
  type ProjectContext,
} from '@verdict/platform';
import type { Ingest } from './ingest';

export interface IngestRoutesOptions {
  ingest: Ingest;
  blobs: BlobStore;
  /** Largest artifact accepted, in bytes (VERDICT_ARTIFACT_MAX_BYTES, default 100 MiB). */
  artifactMaxBytes: number;
}

const NDJSON = 'application/x-ndjson';
const readNdjson = express.text({ type: NDJSON, limit: '10mb' });

/** NDJSON: one result a line; blank lines are skipped; a line that is not JSON is named by its number. */
function parseNdjson(text: string): unknown[] {
  const items: unknown[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      items.push(parseStorableJson(line));
    } catch (error) {
      // Valid JSON nested too deep is said as such; anything else did not parse.
      const why = error instanceof ValidationError ? error.message.replace(/^body: /, '') : 'not valid JSON';
      problems.push(`line ${index + 1}: ${why}`);
    }
  });
  if (problems.length > 0)
    throw new ValidationError(`Malformed NDJSON body: ${problems.slice(0, 20).join('; ')}`);
  return items;
}

/** The batch's items as sent, JSON `{results}` or NDJSON; the ingest checks each one, naming its index. */
function resultsOf(req: Request): unknown {
  if (req.is(NDJSON)) {
    if (typeof req.body !== 'string') throw new ValidationError('Expected an NDJSON body, one result a line');
    const items = parseNdjson(req.body);
    if (items.length > MAX_RESULTS_PER_BATCH) {
      throw new ValidationError(`results: at most ${MAX_RESULTS_PER_BATCH} a request, got ${items.length}`);
    }
    return items;
  }
  const body = req.body as { results?: unknown } | undefined;
  if (body === undefined || typeof body !== 'object' || body === null || !('results' in body)) {
    throw new ValidationError('results: is required (JSON `{results: [...]}` or NDJSON)');
  }
  if (!Array.isArray(body.results)) throw new ValidationError('results: must be an array');
  if (body.results.length > MAX_RESULTS_PER_BATCH) {
    throw new ValidationError(
      `results: at most ${MAX_RESULTS_PER_BATCH} a request, got ${body.results.length}`,
    );
  }
  return body.results;
}

/**
 * Uploads an artifact. Its id names its content (the file's SHA-256 with its name, content type and
 * result), so an upload replayed after a lost answer finds the artifact the first one recorded: the same
 * 201 and id, and its second copy of the bytes deleted. Each upload streams to a key of its own first,
 * since the id is known only once the whole file has been read.
 */
async function uploadArtifact(options: IngestRoutesOptions, runId: string, ctx: ProjectContext) {
  const { projectId } = ctx;
  // An unknown or finished run is refused before any byte is stored (recordArtifact checks again).
  await options.ingest.assertRunning(projectId, runId);
  const key = `${projectId}/${runId}/${newId()}`;
  const { fields, file } = await receiveUpload(ctx.req, {
    blobs: options.blobs,
    key,
    maxBytes: options.artifactMaxBytes,
    // Fields sent before the file describe it best; the file part's own name otherwise. The download
    // link carries what the run recorded either way.
    describe: (sent, part) => ({
      contentType: sent.contentType ?? part.mimeType ?? 'application/octet-stream',
      filename: sent.name || part.filename || 'artifact',
    }),
  });
  const parsed = ArtifactUploadFields.safeParse(fields);
  if (!parsed.success) {
    await options.blobs.delete(key);
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'fields';
    // A form field not sent at all is missing, not of the wrong type.
    const missing = issue?.code === 'invalid_type' && fields[field] === undefined;
    throw new ValidationError(`${field}: ${missing ? 'is required' : (issue?.message ?? 'invalid')}`);
  }
  const { name, contentType, resultRef } = parsed.data;
  const id = derivedId(runId, 'artifact', file.sha256, name, contentType, resultRef ?? '');
  try {
    const artifact = await options.ingest.recordArtifact(
      projectId,
      runId,
      { id, name, contentType, size: file.size, blobKey: key, ...(resultRef ? { resultRef } : {}) },
      ctx,
    );
    // A replay: the run keeps the bytes of the upload it recorded first.
    if (artifact.blobKey !== key) await options.blobs.delete(key);
    return reply.created({
      id: artifact.id,
      name: artifact.name,
      contentType: artifact.contentType,
      size: artifact.size,
    });
  } catch (error) {
    // The blob is only worth keeping if the run recorded it.
    if (error instanceof AppError) await options.blobs.delete(key);
    throw error;
  }
}

/**
 * @example registerRoutes(router, ingestRoutes({ ingest, blobs, artifactMaxBytes }));
 */
export function ingestRoutes(options: IngestRoutesOptions): BoundRoute[] {
  const { ingest } = options;
  return bindRoutes(testResultsIngestRoutes, {
    'post /{projectId}/test-runs': async ({ body }, ctx) => {
      const defaultBranch = ctx.identity.defaultBranch ?? null;
      const { run, created } = await ingest.startRun(ctx.projectId, body, { ...ctx, defaultBranch });
      return created ? reply.created(run) : run;
    },
    'post /{projectId}/test-runs/{runId}/results': {
      before: [readNdjson],
      handle: async ({ params }, ctx) =>
        reply.accepted(await ingest.addResults(ctx.projectId, params.runId, resultsOf(ctx.req), ctx)),
    },
    'post /{projectId}/test-runs/{runId}/artifacts': ({ params }, ctx) =>
      uploadArtifact(options, params.runId, ctx),
    'post /{projectId}/test-runs/{runId}/coverage': ({ params, body }, ctx) =>
      ingest.addCoverage(ctx.projectId, params.runId, body, ctx),
    'post /{projectId}/test-runs/{runId}/finish': ({ params, body }, ctx) =>
      ingest.finish(ctx.projectId, params.runId, body, ctx),
  });
}
