import type { Readable } from 'node:stream';
import { MEDIA_TYPE } from '@verdict/contracts';
import { ValidationError } from '../errors';

/**
 * Blob store port for artifacts (screenshots, traces, videos): large byte streams that never sit in
 * memory whole. Blobs are write-once: a key is claimed by the first complete put, and a put that fails
 * (too large, source error) leaves nothing behind, so a reader sees a whole blob or none.
 */

export interface PutBlobOptions {
  /** A media type (`type/subtype` with optional parameters); sent back as `Content-Type` on download. */
  contentType: string;
  /** Largest size accepted; one byte more aborts the put with PayloadTooLargeError. */
  maxBytes: number;
  /** The name a download is saved under (made safe when served); the key's last segment by default. */
  filename?: string;
}

export interface BlobMetadata {
  key: string;
  size: number;
  /** Hex SHA-256 of the content, computed while it streamed in. */
  sha256: string;
  contentType: string;
  filename?: string;
  /** ISO-8601 instant the put completed. */
  createdAt: string;
}

export interface BlobContent extends BlobMetadata {
  /** The content. The caller must consume or destroy it: it holds an open file until then. */
  stream: Readable;
}

export interface BlobStore {
  /**
   * Streams `source` into the blob `key`. Throws ValidationError for a bad key or content type,
   * PayloadTooLargeError past `maxBytes`, ConflictError when the key already holds a blob (or is a folder
   * of other keys). On a size overrun the source is left to the caller (unpiped, not destroyed), so an
   * HTTP handler can still answer 413 on the same connection.
   */
  put(key: string, source: Readable | Buffer, options: PutBlobOptions): Promise<BlobMetadata>;
  /** The blob with its metadata, or null when there is none. */
  get(key: string): Promise<BlobContent | null>;
  /** The metadata alone (no file is opened), or null when there is no blob. */
  stat(key: string): Promise<BlobMetadata | null>;
  /** Removes the blob; deleting a missing key is harmless. */
  delete(key: string): Promise<void>;
  /** Resolves when the store can be written; used by /readyz. */
  ping(): Promise<void>;
}

/** Longest key; keys end up in URLs and file paths. */
export const MAX_BLOB_KEY_LENGTH = 1024;
// 200 leaves room under the usual 255-byte file name limit for the store's own `.<name>.<suffix>` files.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/**
 * Whether `key` is a valid blob key: `/`-separated segments of `A–Z a–z 0–9 . _ -`, none empty and none
 * starting with a dot. That rules out absolute paths, `.` and `..`, and hidden names, which the store
 * keeps for its own sidecar and temporary files.
 *
 * @example if (!isValidBlobKey(key)) throw new ValidationError('Bad key');
 */
export function isValidBlobKey(key: string): boolean {
  return key.length > 0 && key.length <= MAX_BLOB_KEY_LENGTH && key.split('/').every((s) => SEGMENT.test(s));
}

/**
 * Throws ValidationError unless `key` is a valid blob key (see isValidBlobKey).
 *
 * @example assertBlobKey(`${projectId}/${runId}/${artifactId}`);
 */
export function assertBlobKey(key: string): void {
  if (!isValidBlobKey(key)) {
    throw new ValidationError(
      'Invalid blob key: use `/`-separated segments of letters, digits, `.`, `_` and `-`, none starting with `.`',
      { key: key.slice(0, 100) },
    );
  }
}

const MAX_CONTENT_TYPE_LENGTH = 255;
const MAX_FILENAME_LENGTH = 255;

/**
 * Checks the options of a put, for every adapter alike: a bad content type or file name is the client's
 * (ValidationError); a bad `maxBytes` is the caller's bug (RangeError).
 *
 * @example assertPutBlobOptions({ contentType: 'image/png', maxBytes: 100 * 1024 * 1024 });
 */
export function assertPutBlobOptions(options: PutBlobOptions): void {
  if (!Number.isSafeInteger(options.maxBytes) || options.maxBytes < 0) {
    throw new RangeError(`maxBytes must be a non-negative integer, got ${options.maxBytes}`);
  }
  const { contentType, filename } = options;
  if (contentType.length > MAX_CONTENT_TYPE_LENGTH || !MEDIA_TYPE.test(contentType)) {
    throw new ValidationError('Invalid content type: expected a media type such as image/png');
  }
  if (filename !== undefined && (filename.length === 0 || filename.length > MAX_FILENAME_LENGTH)) {
    throw new ValidationError(`Invalid file name: 1 to ${MAX_FILENAME_LENGTH} characters`);
  }
}
