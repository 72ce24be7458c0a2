import Busboy from 'busboy';
import express, { type Request, type RequestHandler } from 'express';
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import {
  AddCoverageRequest,
  ArtifactUploadFields,
  FinishRunRequest,
  MAX_RESULTS_PER_BATCH,
  RunPath,
  StartRunRequest,
  testResultsIngestRoutes,
} from '@verdict/contracts';
import {
  AppError,
  newId,
  parseBody,
  parseParams,
  PayloadTooLargeError,
  sendData,
  storableText,
  ValidationError,
  type ApiRoute,
  type BlobStore,
  parseStorableJson,
} from '@verdict/platform';
import type { Ingest } from '../runs/ingest';
import { derivedId } from '../runs/run';

export interface IngestRoutesOptions {
  ingest: Ingest;
  blobs: BlobStore;
  /** Largest artifact accepted, in bytes (VERDICT_ARTIFACT_MAX_BYTES, default 100 MiB). */
  artifactMaxBytes: number;
}

const NDJSON = 'application/x-ndjson';
const readNdjson = express.text({ type: NDJSON, limit: '10mb' });

const contextOf = (req: Request) => ({ correlationId: req.get('x-request-id') ?? null });
const projectOf = (req: Request) => parseParams(RunPath.pick({ projectId: true }), req).projectId;

/** NDJSON: one result a line; blank lines are skipped; a line that is not JSON is named by its number. */
function parseNdjson(text: string): unknown[] {
  const items: unknown[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      items.push(parseStorableJson(line));
    } catch {
      problems.push(`line ${index + 1}: not valid JSON`);
    }
  });
  if (problems.length > 0)
    throw new ValidationError(`Malformed NDJSON body: ${problems.slice(0, 20).join('; ')}`);
  return items;
}

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

interface Upload {
  fields: Record<string, string>;
  /** `sha256`: of the file's bytes, hex. */
  stored: { key: string; size: number; sha256: string } | null;
}

/** The stream as it is, hashed on its way through. */
function hashing(source: Readable): { stream: Transform; digest: () => string } {
  const hash = createHash('sha256');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  source.on('error', (error) => stream.destroy(error));
  source.pipe(stream);
  return { stream, digest: () => hash.digest('hex') };
}

/**
 * Streams the multipart `file` part straight into the blob store (never into memory) under a key named
 * after the new artifact's id; the other parts are small form fields.
 */
function receiveUpload(req: Request, options: IngestRoutesOptions, key: string): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      // UTF-8 file names as browsers and curl send them (busboy reads them as Latin-1 by default).
      busboy = Busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 1, fields: 10, fieldSize: 4096 },
      });
    } catch {
      reject(new ValidationError('Expected a multipart/form-data body with a `file` part'));
      return;
    }
    const fields: Record<string, string> = {};
    let storing: Promise<{ key: string; size: number; sha256: string }> | null = null;
    busboy.on('field', (name, value) => {
      // As in JSON bodies: a NUL or a lone surrogate becomes U+FFFD (PostgreSQL stores no NUL in text).
      fields[name] = storableText(value);
    });
    busboy.on('file', (name, stream: Readable, info) => {
      if (name !== 'file' || storing) {
        stream.resume();
        return;
      }
      const contentType = fields.contentType ?? info.mimeType ?? 'application/octet-stream';
      const file = hashing(stream);
      storing = options.blobs
        .put(key, file.stream, {
          contentType,
          maxBytes: options.artifactMaxBytes,
          // Fields sent before the file describe it best; the file part's own name otherwise. The download
          // link carries what the run recorded either way.
          filename: fields.name || info.filename || 'artifact',
        })
        .then((stored) => ({ ...stored, sha256: file.digest() }));
      storing.catch(() => {
        stream.unpipe(file.stream);
        stream.resume();
      });
    });
    busboy.on('error', (error) => reject(new ValidationError(`Malformed multipart body: ${String(error)}`)));
    busboy.on('close', () => {
      if (!storing) {
        resolve({ fields, stored: null });
        return;
      }
      storing.then((stored) => resolve({ fields, stored }), reject);
    });
    req.pipe(busboy);
  });
}

/**
 * Uploads an artifact. Its id names its content (the file's SHA-256 with its name, content type and
 * result), so an upload replayed after a lost answer finds the artifact the first one recorded: the same
 * 201 and id, and its second copy of the bytes deleted. Each upload streams to a key of its own first,
 * since the id is known only once the whole file has been read.
 */
function uploadArtifact(options: IngestRoutesOptions): RequestHandler {
  return async (req, res) => {
    const { projectId, runId } = parseParams(RunPath, req);
    // An unknown or finished run is refused before any byte is stored (recordArtifact checks again).
    await options.ingest.assertRunning(projectId, runId);
    const key = `${projectId}/${runId}/${newId()}`;
    let upload: Upload;
    try {
      upload = await receiveUpload(req, options, key);
    } catch (error) {
      if (error instanceof PayloadTooLargeError) {
        throw new PayloadTooLargeError(`file: larger than the limit of ${options.artifactMaxBytes} bytes`);
      }
      throw error;
    }
    if (!upload.stored) throw new ValidationError('file: is required (a multipart part named `file`)');
    const parsed = ArtifactUploadFields.safeParse(upload.fields);
    if (!parsed.success) {
      await options.blobs.delete(key);
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'fields';
      // A form field not sent at all is missing, not of the wrong type.
      const missing = issue?.code === 'invalid_type' && upload.fields[field] === undefined;
      throw new ValidationError(`${field}: ${missing ? 'is required' : (issue?.message ?? 'invalid')}`);
    }
    const { name, contentType, resultRef } = parsed.data;
    const id = derivedId(runId, 'artifact', upload.stored.sha256, name, contentType, resultRef ?? '');
    try {
      const artifact = await options.ingest.recordArtifact(
        projectId,
        runId,
        {
          id,
          name: parsed.data.name,
          contentType: parsed.data.contentType,
          size: upload.stored.size,
          blobKey: key,
          ...(parsed.data.resultRef ? { resultRef: parsed.data.resultRef } : {}),
        },
        contextOf(req),
      );
      // A replay: the run keeps the bytes of the upload it recorded first.
      if (artifact.blobKey !== key) await options.blobs.delete(key);
      sendData(
        res,
        { id: artifact.id, name: artifact.name, contentType: artifact.contentType, size: artifact.size },
        201,
      );
    } catch (error) {
      // The blob is only worth keeping if the run recorded it.
      if (error instanceof AppError) await options.blobs.delete(key);
      throw error;
    }
  };
}

/**
 * The ingest routes of API.md: start, results (JSON or NDJSON), artifacts (multipart), coverage, finish.
 * Every answer comes after the events are committed: a 2xx means durable.
 *
 * @example registerRoutes(router, ingestRoutes({ ingest, blobs, artifactMaxBytes }));
 */
export function ingestRoutes(options: IngestRoutesOptions): ApiRoute[] {
  const { ingest } = options;
  const handlers: Record<string, RequestHandler[]> = {
    'post /{projectId}/test-runs': [
      async (req, res) => {
        const body = parseBody(StartRunRequest, req);
        const { run, created } = await ingest.startRun(projectOf(req), body, contextOf(req));
        sendData(res, run, created ? 201 : 200);
      },
    ],
    'post /{projectId}/test-runs/{runId}/results': [
      readNdjson,
      async (req, res) => {
        const { projectId, runId } = parseParams(RunPath, req);
        const outcome = await ingest.addResults(projectId, runId, resultsOf(req), contextOf(req));
        sendData(res, outcome, 202);
      },
    ],
    'post /{projectId}/test-runs/{runId}/artifacts': [uploadArtifact(options)],
    'post /{projectId}/test-runs/{runId}/coverage': [
      async (req, res) => {
        const { projectId, runId } = parseParams(RunPath, req);
        const coverage = await ingest.addCoverage(
          projectId,
          runId,
          parseBody(AddCoverageRequest, req),
          contextOf(req),
        );
        sendData(res, coverage);
      },
    ],
    'post /{projectId}/test-runs/{runId}/finish': [
      async (req, res) => {
        const { projectId, runId } = parseParams(RunPath, req);
        const body = req.body === undefined ? {} : parseBody(FinishRunRequest, req);
        sendData(res, await ingest.finish(projectId, runId, body, contextOf(req)));
      },
    ],
  };
  return testResultsIngestRoutes.map((spec) => {
    const route = handlers[`${spec.method} ${spec.path}`];
    if (!route) throw new Error(`No handler for ${spec.method} ${spec.path}`);
    return { ...spec, handlers: route };
  });
}
