import Busboy from 'busboy';
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { Request } from 'express';
import type { BlobStore } from '../blobStore/types';
import { PayloadTooLargeError, ValidationError } from '../errors';
import { storableText } from './storable';

/**
 * A multipart upload of one file and a few small form fields: the file part streams straight into the
 * blob store (never into memory), hashed on its way through; the other parts are fields.
 */

/** What the client said of the file part: its name and media type as sent (either may be empty). */
export interface FilePart {
  filename: string;
  mimeType: string;
}

export interface ReceiveUploadOptions {
  blobs: BlobStore;
  /** The blob key the file is stored under. */
  key: string;
  /** Largest file accepted, in bytes: past it, 413 PAYLOAD_TOO_LARGE naming the limit. */
  maxBytes: number;
  /**
   * The stored blob's content type and download name, from the fields sent before the file and the file
   * part itself (default: the part's own, or `application/octet-stream` and `file`).
   */
  describe?(
    fields: Readonly<Record<string, string>>,
    part: FilePart,
  ): { contentType: string; filename: string };
}

export interface ReceivedUpload {
  /** The form fields, as text a NUL or a lone surrogate in was replaced in (as in JSON bodies). */
  fields: Record<string, string>;
  file: {
    key: string;
    size: number;
    /** SHA-256 of the file's bytes, hex. */
    sha256: string;
    contentType: string;
    filename: string;
  };
}

/**
 * Reads a multipart body whose `file` part is required; a second file part is skipped.
 *
 * @example const { fields, file } = await receiveUpload(ctx.req, { blobs, key, maxBytes: 100 * 2 ** 20 });
 */
export async function receiveUpload(req: Request, options: ReceiveUploadOptions): Promise<ReceivedUpload> {
  let received: { fields: Record<string, string>; file: ReceivedUpload['file'] | null };
  try {
    received = await readMultipart(req, options);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) {
      throw new PayloadTooLargeError(`file: larger than the limit of ${options.maxBytes} bytes`);
    }
    throw error;
  }
  if (!received.file) throw new ValidationError('file: is required (a multipart part named `file`)');
  return { fields: received.fields, file: received.file };
}

const describedByPart = (_fields: Readonly<Record<string, string>>, part: FilePart) => ({
  contentType: part.mimeType || 'application/octet-stream',
  filename: part.filename || 'file',
});

function readMultipart(
  req: Request,
  options: ReceiveUploadOptions,
): Promise<{ fields: Record<string, string>; file: ReceivedUpload['file'] | null }> {
  const describe = options.describe ?? describedByPart;
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
    let storing: Promise<ReceivedUpload['file']> | null = null;
    busboy.on('field', (name, value) => {
      fields[name] = storableText(value);
    });
    busboy.on('file', (name, stream: Readable, info) => {
      if (name !== 'file' || storing) {
        stream.resume();
        return;
      }
      const { contentType, filename } = describe(fields, {
        filename: info.filename ?? '',
        mimeType: info.mimeType,
      });
      const file = hashing(stream);
      storing = options.blobs
        .put(options.key, file.stream, { contentType, maxBytes: options.maxBytes, filename })
        .then((stored) => ({
          key: options.key,
          size: stored.size,
          sha256: file.digest(),
          contentType,
          filename,
        }));
      storing.catch(() => {
        stream.unpipe(file.stream);
        stream.resume();
      });
    });
    busboy.on('error', (error) => reject(new ValidationError(`Malformed multipart body: ${String(error)}`)));
    busboy.on('close', () => {
      if (!storing) resolve({ fields, file: null });
      else storing.then((file) => resolve({ fields, file }), reject);
    });
    req.pipe(busboy);
  });
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
