import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, constants, link, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished, PassThrough, Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { systemClock, type Clock } from '../clock';
import { ConflictError, PayloadTooLargeError, ServiceUnavailableError } from '../errors';
import { assertBlobKey, assertPutBlobOptions, type BlobMetadata, type BlobStore } from './types';

/**
 * The default blob store: content in `root/<key>`, metadata in a sidecar `.<name>.meta.json` beside it.
 * The sidecar is the commit mark: put writes the content to a temporary file, links it under its key
 * (a link, unlike a rename, fails when the key is taken, which keeps blobs write-once), then renames the
 * sidecar into place. Readers look for the sidecar first, so a half-done put is invisible; delete removes
 * the sidecar first for the same reason. Names starting with a dot are not valid keys, so the store's
 * own files never collide with blobs.
 */

export interface FilesystemBlobStoreOptions {
  /** The folder that holds the blobs, such as `<data folder>/blobs`; created when needed. */
  root: string;
  /** Source of `createdAt` (default: the system clock). */
  clock?: Clock;
}

const Sidecar = z.object({
  version: z.literal(1),
  key: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  contentType: z.string(),
  filename: z.string().optional(),
  createdAt: z.string(),
});

/**
 * A BlobStore on the local filesystem.
 *
 * @example const blobs = createFilesystemBlobStore({ root: join(config.VERDICT_DATA_DIR, 'blobs') });
 */
export function createFilesystemBlobStore(options: FilesystemBlobStoreOptions): BlobStore {
  const { root } = options;
  const clock = options.clock ?? systemClock;

  return {
    async put(key, source, putOptions) {
      assertBlobKey(key);
      assertPutBlobOptions(putOptions);
      // Watch the source before the first await: an error it emits meanwhile must not go unhandled.
      const input = Buffer.isBuffer(source) ? fromBuffer(source) : detachable(source);
      const paths = pathsOf(root, key);
      try {
        await makeFolder(paths.folder, key);
        const measured = await writeMeasured(paths.temporary, input.stream, putOptions.maxBytes);
        const metadata: BlobMetadata = {
          key,
          ...measured,
          contentType: putOptions.contentType,
          ...(putOptions.filename === undefined ? {} : { filename: putOptions.filename }),
          createdAt: clock.now().toISOString(),
        };
        await commit(paths, metadata);
        return metadata;
      } finally {
        input.detach();
        await Promise.all([removeFile(paths.temporary), removeFile(paths.temporarySidecar)]);
      }
    },

    async get(key) {
      assertBlobKey(key);
      const paths = pathsOf(root, key);
      const metadata = await readSidecar(paths.sidecar);
      if (metadata === null) return null;
      const handle = await open(paths.content, 'r').catch(nullWhenMissing);
      // A delete between the two reads: the blob is gone.
      if (handle === null) return null;
      return { ...metadata, stream: handle.createReadStream() };
    },

    async stat(key) {
      assertBlobKey(key);
      return readSidecar(pathsOf(root, key).sidecar);
    },

    async delete(key) {
      assertBlobKey(key);
      const paths = pathsOf(root, key);
      await removeFile(paths.sidecar);
      await removeFile(paths.content);
    },

    async ping() {
      try {
        await mkdir(root, { recursive: true });
        await access(root, constants.W_OK);
      } catch (err) {
        throw new ServiceUnavailableError('The blob folder is not writable', err);
      }
    },
  };
}

interface BlobPaths {
  folder: string;
  content: string;
  sidecar: string;
  temporary: string;
  temporarySidecar: string;
}

/** Where a key's files live. Keys are validated first, so the join cannot leave `root`. */
function pathsOf(root: string, key: string): BlobPaths {
  const content = join(root, ...key.split('/'));
  const folder = dirname(content);
  const name = basename(content);
  // Temporary files sit in the blob's own folder: a link or rename is atomic only within one filesystem.
  const nonce = randomBytes(8).toString('hex');
  return {
    folder,
    content,
    sidecar: join(folder, `.${name}.meta.json`),
    temporary: join(folder, `.${name}.${nonce}.tmp`),
    temporarySidecar: join(folder, `.${name}.${nonce}.meta.tmp`),
  };
}

async function makeFolder(folder: string, key: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (err) {
    if (hasCode(err, 'EEXIST') || hasCode(err, 'ENOTDIR')) {
      throw new ConflictError(`Blob key ${key} runs through an existing blob`);
    }
    throw err;
  }
}

/**
 * Makes a fully written blob visible: the sidecar goes to a temporary file, the content is linked under
 * its key (only the first put of a key gets past this), and the sidecar's rename is the moment of truth.
 */
async function commit(paths: BlobPaths, metadata: BlobMetadata): Promise<void> {
  await writeFile(paths.temporarySidecar, JSON.stringify({ version: 1, ...metadata }), {
    flag: 'wx',
    flush: true,
  });
  try {
    await link(paths.temporary, paths.content);
  } catch (err) {
    if (hasCode(err, 'EEXIST')) throw new ConflictError(`Blob ${metadata.key} already exists`);
    throw err;
  }
  await rename(paths.temporarySidecar, paths.sidecar);
}

/** Streams `input` into a new file at `path`, counting and hashing on the way. */
async function writeMeasured(
  path: string,
  input: Readable,
  maxBytes: number,
): Promise<{ size: number; sha256: string }> {
  const meter = new Meter(maxBytes);
  // flush: the bytes reach the disk before the blob becomes visible, so a crash cannot leave an empty one.
  await pipeline(input, meter, createWriteStream(path, { flags: 'wx', flush: true }));
  return { size: meter.size, sha256: meter.digest() };
}

interface Input {
  stream: Readable;
  /** Stops reading the caller's stream; harmless once it has ended. */
  detach: () => void;
}

function fromBuffer(bytes: Buffer): Input {
  return { stream: Readable.from([bytes]), detach: () => {} };
}

/**
 * Reads the caller's stream through a pass-through of ours, so that aborting the write destroys only the
 * pass-through: a destroyed HTTP request takes its socket along, and the client would see a reset instead
 * of the 413. The source's errors and premature close still abort the write.
 */
function detachable(source: Readable): Input {
  const through = new PassThrough();
  // The pipeline that reads `through` starts after an await and reports its error from then on.
  through.on('error', () => {});
  const stopWatching = finished(source, { writable: false }, (err) => {
    if (err) through.destroy(err);
  });
  source.pipe(through);
  return {
    stream: through,
    detach: () => {
      stopWatching();
      source.unpipe(through);
    },
  };
}

/** Counts and hashes the bytes going through; fails with PayloadTooLargeError past the limit. */
class Meter extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      callback(new PayloadTooLargeError(`The blob is larger than ${this.maxBytes} bytes`));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

async function readSidecar(path: string): Promise<BlobMetadata | null> {
  const raw = await readFile(path, 'utf8').catch(nullWhenMissing);
  if (raw === null) return null;
  const { version: _version, ...metadata } = Sidecar.parse(JSON.parse(raw));
  return metadata;
}

/** ENOENT, or ENOTDIR when part of the key's path is a blob: either way there is no such blob. */
function nullWhenMissing(err: unknown): null {
  if (hasCode(err, 'ENOENT') || hasCode(err, 'ENOTDIR')) return null;
  throw err;
}

/** Removes a file if there is one; a folder of other keys or a path through a blob is left alone. */
async function removeFile(path: string): Promise<void> {
  try {
    await rm(path, { force: true });
  } catch (err) {
    if (hasCode(err, 'ENOTDIR') || hasCode(err, 'ERR_FS_EISDIR')) return;
    throw err;
  }
}

// Structural, not `instanceof Error`: errors of Node's fs may come from another realm (jest's VM contexts).
function hasCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === code;
}
