import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type Request, type Response } from 'express';
import { systemClock, type Clock } from '../clock';
import { ForbiddenError, NotFoundError } from '../errors';
import { assertBlobKey, isValidBlobKey, type BlobMetadata, type BlobStore } from './types';

/**
 * Artifact downloads without a bearer token: a service that has checked access signs a short-lived URL
 * (spec §2, "authenticated, time-limited download URLs"), and the gateway serves the blob to whoever holds
 * it until it expires. The HMAC covers the method, the route path, the key, the expiry and the download's
 * name and media type when the signer gives them, so changing any of them voids the link; the query
 * carries `expires` (unix seconds), `signature` (base64url) and those two (`name`, `type`). The signer's
 * name and type win over the blob's own: they are what the service recorded (an upload's form fields
 * may come after its file, when the blob was already stored under the file part's own name and type).
 */

/** How long a signed URL stays valid unless the signer says otherwise: 15 minutes. */
export const DEFAULT_SIGNED_URL_TTL_MS = 15 * 60 * 1000;

/** HMAC-SHA256 keys shorter than the hash output weaken the MAC (RFC 2104 §3). */
const MIN_SECRET_LENGTH = 32;
// Absolute, no trailing slash, no `.` or `..` segment (a URL parser would fold those away).
const ROUTE_PATH = /^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;
// Canonical decimal only: `0900` must not pass for `900`.
const EXPIRES = /^(0|[1-9]\d{0,11})$/;
const MAX_FILENAME_LENGTH = 120;

export type BlobSignatureCheck = 'ok' | 'expired' | 'invalid';

export interface SignBlobUrlOptions {
  /** Public base of the gateway, such as VERDICT_PUBLIC_URL; may carry a path prefix. */
  baseUrl: string;
  /** Where serveSignedBlobs is mounted on the gateway, such as `/blobs`. */
  path: string;
  key: string;
  /** Last instant the URL works (rounded down to the second). */
  expiresAt: Date;
  secret: string;
  /** The name the download is saved under, instead of the blob's. */
  filename?: string;
  /** The download's media type, instead of the blob's. */
  contentType?: string;
}

export interface VerifyBlobSignatureOptions {
  path: string;
  key: string;
  /** The `expires` query parameter: unix seconds. */
  expires: string | number;
  /** The `signature` query parameter. */
  signature: string;
  secret: string;
  now: Date;
  /** The `name` and `type` query parameters, when the URL carries them. */
  filename?: string;
  contentType?: string;
}

export interface ServeSignedBlobsOptions {
  store: BlobStore;
  secret: string;
  /** The verifier's time (default: the system clock). */
  clock?: Clock;
}

/**
 * A download URL for `key` that works until `expiresAt`: `<baseUrl><path>/<key>?expires=…&signature=…`.
 *
 * @example const url = signBlobUrl({ baseUrl: config.VERDICT_PUBLIC_URL, path: '/blobs', key, expiresAt: new Date(clock.now().getTime() + DEFAULT_SIGNED_URL_TTL_MS), secret });
 */
export function signBlobUrl(options: SignBlobUrlOptions): string {
  assertSigningSecret(options.secret);
  assertRoutePath(options.path);
  assertBlobKey(options.key);
  const expiresMs = options.expiresAt.getTime();
  if (!Number.isFinite(expiresMs)) throw new RangeError('expiresAt is not a valid date');
  const expires = String(Math.floor(expiresMs / 1000));
  // Key characters are all URL-safe, so the key goes into the path as it is.
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}${options.path}/${options.key}`);
  url.searchParams.set('expires', expires);
  if (options.filename !== undefined) url.searchParams.set('name', options.filename);
  if (options.contentType !== undefined) url.searchParams.set('type', options.contentType);
  url.searchParams.set('signature', signatureOf({ ...options, expires }));
  return url.toString();
}

/**
 * Checks a signed URL's parts: 'invalid' when anything was changed or made up, else 'expired' once `now`
 * reaches the expiry, else 'ok'. The signature is checked first, so 'expired' is only ever said of a
 * genuine link.
 *
 * @example if (verifyBlobSignature({ path: '/blobs', key, expires, signature, secret, now: clock.now() }) !== 'ok') throw new ForbiddenError();
 */
export function verifyBlobSignature(options: VerifyBlobSignatureOptions): BlobSignatureCheck {
  assertSigningSecret(options.secret);
  assertRoutePath(options.path);
  const expires = String(options.expires);
  if (!EXPIRES.test(expires) || !isValidBlobKey(options.key)) return 'invalid';
  const expected = Buffer.from(signatureOf({ ...options, expires }));
  // Comparing the text, not decoded bytes: base64url decoding forgives stray characters.
  const given = Buffer.from(options.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return options.now.getTime() < Number(expires) * 1000 ? 'ok' : 'expired';
}

/**
 * Serves blobs to holders of a signed URL, for GET and HEAD. Mount it with `app.use(path, …)`: the mount
 * path is the `path` the URLs were signed with. A missing, tampered or expired signature is 403
 * FORBIDDEN; a validly signed key with no blob is 404 NOT_FOUND (never said to unsigned callers).
 *
 * @example app.use('/blobs', serveSignedBlobs({ store: blobs, secret: config.VERDICT_BLOB_SIGNING_SECRET }));
 */
export function serveSignedBlobs(options: ServeSignedBlobsOptions): Router {
  assertSigningSecret(options.secret);
  const { store, secret } = options;
  const clock = options.clock ?? systemClock;
  const router = Router();

  // Express answers HEAD with the GET route; the handler opens no file for it.
  router.get('/*key', async (req, res) => {
    const key = keyOf(req.params.key);
    const now = clock.now();
    const expires = authorize(req, key, secret, now);
    const secondsLeft = Math.floor((expires * 1000 - now.getTime()) / 1000);
    const overrides = overridesOf(req);
    if (req.method === 'HEAD') {
      setDownloadHeaders(res, { ...orNotFound(await store.stat(key)), ...overrides }, secondsLeft);
      res.end();
      return;
    }
    const blob = orNotFound(await store.get(key));
    setDownloadHeaders(res, { ...blob, ...overrides }, secondsLeft);
    await streamBody(blob.stream, res);
  });
  return router;
}

/**
 * A file name safe inside `Content-Disposition: attachment; filename="…"` and on any file system: the last
 * path segment, accents stripped, other characters outside `A–Z a–z 0–9 . _ -` replaced by `_`, no
 * leading dot or underscore, at most 120 characters keeping the extension; `download` when nothing is left.
 *
 * @example res.setHeader('Content-Disposition', `attachment; filename="${safeFilename(name)}"`);
 */
export function safeFilename(name: string): string {
  const lastSegment = name.split(/[/\\]/).pop() ?? '';
  const ascii = lastSegment
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '');
  return truncateKeepingExtension(ascii, MAX_FILENAME_LENGTH) || 'download';
}

function signatureOf(parts: {
  path: string;
  key: string;
  expires: string;
  secret: string;
  filename?: string;
  contentType?: string;
}): string {
  // Newline-separated: neither the path, the key nor the expiry can contain one, so fields cannot shift.
  const fields = ['GET', parts.path, parts.key, parts.expires];
  // A name or type holding a newline is JSON-encoded, so it cannot shift the fields either; a URL without
  // them signs exactly what it signed before they existed.
  if (parts.filename !== undefined || parts.contentType !== undefined) {
    fields.push(JSON.stringify([parts.filename ?? null, parts.contentType ?? null]));
  }
  return createHmac('sha256', parts.secret).update(fields.join('\n')).digest('base64url');
}

/** The name and type a signed URL carries (already covered by its signature), to serve the blob under. */
function overridesOf(req: Request): { filename?: string; contentType?: string } {
  const { name, type } = req.query;
  return {
    ...(typeof name === 'string' ? { filename: name } : {}),
    ...(typeof type === 'string' ? { contentType: type } : {}),
  };
}

/** The key from the `*key` wildcard: Express 5 hands it over as decoded path segments. */
function keyOf(param: unknown): string {
  return Array.isArray(param) ? param.join('/') : String(param);
}

/** Throws ForbiddenError unless the request carries a valid, unexpired signature; returns the expiry. */
function authorize(req: Request, key: string, secret: string, now: Date): number {
  const { expires, signature } = req.query;
  if (typeof expires !== 'string' || typeof signature !== 'string') {
    throw new ForbiddenError('The download link is not signed');
  }
  const check = verifyBlobSignature({
    path: req.baseUrl,
    key,
    expires,
    signature,
    secret,
    now,
    ...overridesOf(req),
  });
  if (check === 'expired') throw new ForbiddenError('The download link has expired');
  if (check === 'invalid') throw new ForbiddenError('The download link is not valid');
  return Number(expires);
}

function orNotFound<T>(blob: T | null): T {
  if (blob === null) throw new NotFoundError('Blob not found');
  return blob;
}

function setDownloadHeaders(res: Response, blob: BlobMetadata, secondsLeft: number): void {
  const filename = safeFilename(blob.filename ?? blob.key);
  res.status(200);
  res.setHeader('Content-Type', blob.contentType);
  res.setHeader('Content-Length', String(blob.size));
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  // A browser or proxy may keep the bytes only as long as the link itself is valid, and never share them.
  res.setHeader('Cache-Control', `private, max-age=${secondsLeft}`);
  // Uploaded content is untrusted: never sniffed into HTML, never scripted if a browser renders it anyway.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
}

async function streamBody(stream: Readable, res: Response): Promise<void> {
  try {
    await pipeline(stream, res);
  } catch (err) {
    // The status line has gone out, so no envelope can follow: the client sees a cut-short body. A client
    // hanging up is routine; a failing read is worth a log line.
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    if (code !== 'ERR_STREAM_PREMATURE_CLOSE') {
      res.locals.log.error({ err }, 'blob download failed mid-stream');
    }
  }
}

function truncateKeepingExtension(name: string, max: number): string {
  if (name.length <= max) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  return name.slice(0, max - extension.length) + extension;
}

function assertRoutePath(path: string): void {
  if (!ROUTE_PATH.test(path)) throw new RangeError(`Invalid blob route path ${JSON.stringify(path)}`);
}

function assertSigningSecret(secret: string): void {
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new RangeError(`The blob signing secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
}
