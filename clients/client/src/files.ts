/**
 * Request bodies read from disk as they are sent, never held in memory whole: a file alone (an import),
 * or a file inside a multipart/form-data body (an artifact upload). Node only (Node 18 and newer); the
 * browser passes Blobs instead. `node:fs` is loaded when a path is first used, so that bundles for the
 * browser never include it.
 */

import { VerdictConfigError } from './errors';

/** The parts of `node:fs` used here (declared, so the package's types need no @types/node). */
interface NodeFs {
  promises: { stat(path: string): Promise<{ size: number; isFile(): boolean }> };
  createReadStream(path: string): AsyncIterable<Uint8Array>;
}

// A specifier in a variable: bundlers for the browser leave it alone instead of resolving node:fs.
const FS_MODULE = 'node:fs';

async function nodeFs(): Promise<NodeFs> {
  try {
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ FS_MODULE)) as NodeFs;
  } catch (error) {
    throw new VerdictConfigError('Reading a file by its path needs Node.js; in a browser, pass a Blob', {
      cause: error,
    });
  }
}

/** A file to send: its size, and its bytes, read as they are sent. */
export interface FileSource {
  size: number;
  chunks: AsyncIterable<Uint8Array>;
}

/**
 * A regular file to stream. It must exist now (a missing file fails here, before anything is sent); it
 * is opened only when its bytes are first pulled, and closed when they end or the send is abandoned, so
 * a request that never starts leaves no file open.
 */
export async function fileSource(path: string): Promise<FileSource> {
  const fs = await nodeFs();
  const stat = await fs.promises.stat(path);
  if (!stat.isFile()) throw new VerdictConfigError(`${path} is not a file`);
  return {
    size: stat.size,
    chunks: { [Symbol.asyncIterator]: () => fs.createReadStream(path)[Symbol.asyncIterator]() },
  };
}

/** A web stream over async chunks, pulled as the request is sent. */
export function streamOf(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

/** A multipart field name or file name as the HTML standard escapes it in a quoted header parameter. */
const quoted = (value: string) =>
  `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;

/** A boundary no file will contain by chance (Node 18 has no global crypto: Math.random is enough here). */
function randomBoundary(): string {
  const bytes = new Uint8Array(16);
  const crypto = (globalThis as { crypto?: { getRandomValues(array: Uint8Array): Uint8Array } }).crypto;
  if (crypto) crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i += 1) bytes[i] = Math.floor(Math.random() * 256);
  return `----VerdictClient${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export interface MultipartFile {
  /** The form field the file goes in. */
  field: string;
  filename: string;
  contentType: string;
  chunks: AsyncIterable<Uint8Array>;
}

/**
 * A multipart/form-data body of text fields then one file, streamed: the fields first, so a server that
 * reads the file as it arrives already knows what it is.
 */
export function multipartBody(
  fields: ReadonlyArray<readonly [string, string]>,
  file: MultipartFile,
): { contentType: string; body: ReadableStream<Uint8Array> } {
  const boundary = randomBoundary();
  const encoder = new TextEncoder();
  const head = fields
    .map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`,
    )
    .join('');
  const fileHead =
    `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(file.field)}; filename=${quoted(file.filename)}\r\n` +
    `Content-Type: ${file.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`;
  async function* parts(): AsyncGenerator<Uint8Array> {
    yield encoder.encode(head + fileHead);
    yield* file.chunks;
    yield encoder.encode(`\r\n--${boundary}--\r\n`);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: streamOf(parts()) };
}

/** The last segment of a path, as a file name. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? 'file';
}
