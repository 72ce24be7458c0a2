import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { ManualClock } from '../clock';
import { ConflictError, PayloadTooLargeError, ServiceUnavailableError, ValidationError } from '../errors';
import { createFilesystemBlobStore } from './filesystem';
import type { BlobStore } from './types';

// One contract for every adapter of the port; the filesystem is the only one so far. Real file I/O in a
// fresh temporary folder per test, hence an integration test.

const MiB = 1024 * 1024;
const clock = new ManualClock('2026-03-01T10:00:00.000Z');

describe.each([['filesystem', (root: string) => createFilesystemBlobStore({ root, clock })]] as const)(
  'BlobStore contract (%s)',
  (_adapter, create: (root: string) => BlobStore) => {
    let root: string;
    let store: BlobStore;

    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), 'verdict-blobs-'));
      store = create(join(root, 'blobs'));
    });

    afterEach(async () => {
      await rm(root, { recursive: true, force: true });
    });

    it('when a buffer is put, then get returns the same bytes with size, sha256 and metadata', async () => {
      const bytes = Buffer.from('hello, artifacts');
      const put = await store.put('p1/r1/a1', bytes, {
        contentType: 'text/plain; charset=utf-8',
        maxBytes: 1024,
        filename: 'notes.txt',
      });
      const expected = {
        key: 'p1/r1/a1',
        size: bytes.length,
        sha256: sha256Of(bytes),
        contentType: 'text/plain; charset=utf-8',
        filename: 'notes.txt',
        createdAt: '2026-03-01T10:00:00.000Z',
      };
      expect(put).toEqual(expected);

      const blob = await store.get('p1/r1/a1');
      expect(blob).not.toBeNull();
      const { stream, ...metadata } = blob!;
      expect(metadata).toEqual(expected);
      expect(await buffer(stream)).toEqual(bytes);
      expect(await store.stat('p1/r1/a1')).toEqual(expected);
    });

    it('when a 5 MiB stream is put in chunks, then the stored blob has its exact bytes and hash', async () => {
      const chunks = Array.from({ length: 80 }, (_, i) => Buffer.alloc(64 * 1024, i));
      const whole = Buffer.concat(chunks);

      const put = await store.put('p1/r1/video.webm', Readable.from(chunks), {
        contentType: 'video/webm',
        maxBytes: 100 * MiB,
      });

      expect(put.size).toBe(5 * MiB);
      expect(put.sha256).toBe(sha256Of(whole));
      const blob = await store.get('p1/r1/video.webm');
      const read = await buffer(blob!.stream);
      expect(read.length).toBe(5 * MiB);
      expect(sha256Of(read)).toBe(put.sha256);
    });

    it('when exactly maxBytes arrive, then the put succeeds', async () => {
      const put = await store.put('p1/exact', Buffer.alloc(1024, 7), {
        contentType: 'application/octet-stream',
        maxBytes: 1024,
      });
      expect(put.size).toBe(1024);
    });

    it('when a stream goes past maxBytes, then put throws PayloadTooLargeError and leaves no file at all', async () => {
      const source = Readable.from(Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, 1)));

      await expect(
        store.put('p1/r1/big', source, { contentType: 'application/zip', maxBytes: MiB }),
      ).rejects.toBeInstanceOf(PayloadTooLargeError);

      expect(await store.get('p1/r1/big')).toBeNull();
      expect(await store.stat('p1/r1/big')).toBeNull();
      expect(await filesUnder(root)).toEqual([]);
    });

    it('when a stream goes past maxBytes, then the source is left to the caller, not destroyed', async () => {
      const source = new PassThrough();
      const put = store.put('p1/r1/big', source, { contentType: 'application/zip', maxBytes: 10 });
      source.write(Buffer.alloc(20, 1));

      await expect(put).rejects.toBeInstanceOf(PayloadTooLargeError);
      expect(source.destroyed).toBe(false);
      source.destroy();
    });

    it('when a buffer is larger than maxBytes, then put throws PayloadTooLargeError and stores nothing', async () => {
      await expect(
        store.put('p1/small', Buffer.alloc(11), { contentType: 'text/plain', maxBytes: 10 }),
      ).rejects.toBeInstanceOf(PayloadTooLargeError);
      expect(await filesUnder(root)).toEqual([]);
    });

    it('when the source fails mid-way, then put rejects with its error and leaves no file', async () => {
      const source = new PassThrough();
      const put = store.put('p1/r1/broken', source, { contentType: 'text/plain', maxBytes: MiB });
      source.write('partial ');
      source.destroy(new Error('client went away'));

      await expect(put).rejects.toThrow('client went away');
      expect(await store.get('p1/r1/broken')).toBeNull();
      expect(await filesUnder(root)).toEqual([]);
    });

    it('when different keys are put concurrently, then each holds its own bytes', async () => {
      const keys = Array.from({ length: 20 }, (_, i) => `p1/r1/a${i}`);
      await Promise.all(
        keys.map((key, i) =>
          store.put(key, Readable.from(chunksOf(key, i)), {
            contentType: 'application/octet-stream',
            maxBytes: MiB,
          }),
        ),
      );

      for (const [i, key] of keys.entries()) {
        const read = await buffer((await store.get(key))!.stream);
        // Hashes, not toEqual: a byte-by-byte deep comparison of 32 KiB buffers is needlessly slow.
        expect(sha256Of(read)).toBe(sha256Of(contentOf(key, i)));
      }
    });

    it('when a key already holds a blob, then put throws ConflictError and the first blob stays', async () => {
      await store.put('p1/a', Buffer.from('first'), { contentType: 'text/plain', maxBytes: 100 });

      await expect(
        store.put('p1/a', Buffer.from('second'), { contentType: 'text/plain', maxBytes: 100 }),
      ).rejects.toBeInstanceOf(ConflictError);

      expect((await buffer((await store.get('p1/a'))!.stream)).toString()).toBe('first');
      expect(await filesUnder(root)).toEqual(['blobs/p1/.a.meta.json', 'blobs/p1/a']);
    });

    it('when a key runs through an existing blob or names a folder of blobs, then put throws ConflictError', async () => {
      await store.put('p1/a', Buffer.from('x'), { contentType: 'text/plain', maxBytes: 100 });
      await store.put('p2/b/c', Buffer.from('y'), { contentType: 'text/plain', maxBytes: 100 });

      const options = { contentType: 'text/plain', maxBytes: 100 };
      await expect(store.put('p1/a/b', Buffer.from('z'), options)).rejects.toBeInstanceOf(ConflictError);
      await expect(store.put('p2/b', Buffer.from('z'), options)).rejects.toBeInstanceOf(ConflictError);
      expect(await store.get('p1/a/b')).toBeNull();
      expect(await store.get('p2/b')).toBeNull();
    });

    it.each([
      ['empty', ''],
      ['absolute', '/etc/passwd'],
      ['a parent segment', '../escape'],
      ['a parent segment inside', 'p1/../../escape'],
      ['a dot segment', 'p1/./a'],
      ['an empty segment', 'p1//a'],
      ['a trailing slash', 'p1/a/'],
      ['hidden', '.hidden'],
      ['shaped like a sidecar', 'p1/.a.meta.json'],
      ['a backslash', 'p1\\a'],
      ['a drive letter', 'C:/a'],
      ['a space', 'p1/a b'],
      ['a non-ASCII letter', 'p1/ümlaut'],
      ['a newline', 'p1/a\nb'],
      ['a segment over 200 characters', `p1/${'x'.repeat(201)}`],
      ['over 1024 characters', Array.from({ length: 210 }, () => 'abcd').join('/')],
    ])('when the key is %s, then every operation throws ValidationError', async (_case, key) => {
      const options = { contentType: 'text/plain', maxBytes: 10 };
      await expect(store.put(key, Buffer.from('x'), options)).rejects.toBeInstanceOf(ValidationError);
      await expect(store.get(key)).rejects.toBeInstanceOf(ValidationError);
      await expect(store.stat(key)).rejects.toBeInstanceOf(ValidationError);
      await expect(store.delete(key)).rejects.toBeInstanceOf(ValidationError);
      expect(await filesUnder(root)).toEqual([]);
    });

    it('when a key is at the limits (1024 characters, 200 per segment), then it is accepted', async () => {
      const key = [...Array.from({ length: 5 }, () => 'k'.repeat(200)), 'x'.repeat(19)].join('/');
      expect(key.length).toBe(1024);
      await store.put(key, Buffer.from('x'), { contentType: 'text/plain', maxBytes: 10 });
      expect(await store.stat(key)).not.toBeNull();
    });

    it.each(['', 'png', 'image/', 'text/plain\r\nX-Injected: 1', 'text/plain; charset="a\nb"'])(
      'when the content type is %j, then put throws ValidationError',
      async (contentType) => {
        await expect(
          store.put('p1/a', Buffer.from('x'), { contentType, maxBytes: 10 }),
        ).rejects.toBeInstanceOf(ValidationError);
      },
    );

    it('when a blob is deleted, then get and stat return null, deleting again is harmless and the key is free', async () => {
      await store.put('p1/a', Buffer.from('x'), { contentType: 'text/plain', maxBytes: 10 });

      await store.delete('p1/a');

      expect(await store.get('p1/a')).toBeNull();
      expect(await store.stat('p1/a')).toBeNull();
      await expect(store.delete('p1/a')).resolves.toBeUndefined();
      await store.put('p1/a', Buffer.from('again'), { contentType: 'text/plain', maxBytes: 10 });
      expect((await buffer((await store.get('p1/a'))!.stream)).toString()).toBe('again');
    });

    it('when a key was never put, then get and stat return null and delete is harmless', async () => {
      expect(await store.get('p1/never')).toBeNull();
      expect(await store.stat('p1/never')).toBeNull();
      await expect(store.delete('p1/never')).resolves.toBeUndefined();
    });

    it('when a key names a folder of other blobs, then get is null and delete leaves those blobs', async () => {
      await store.put('p1/r1/a', Buffer.from('x'), { contentType: 'text/plain', maxBytes: 10 });

      expect(await store.get('p1/r1')).toBeNull();
      await store.delete('p1/r1');
      await store.delete('p1/r1/a/b');

      expect(await store.stat('p1/r1/a')).not.toBeNull();
    });

    it('when the root folder is writable, then ping resolves', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('when the root is not a folder, then ping throws ServiceUnavailableError', async () => {
      const file = join(root, 'not-a-folder');
      await writeFile(file, 'x');
      await expect(create(file).ping()).rejects.toBeInstanceOf(ServiceUnavailableError);
    });
  },
);

function chunksOf(key: string, i: number): Buffer[] {
  return [Buffer.from(`${key}:`), Buffer.alloc(16 * 1024, i), Buffer.alloc(16 * 1024, i + 1)];
}

function contentOf(key: string, i: number): Buffer {
  return Buffer.concat(chunksOf(key, i));
}

function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Every file under `folder`, hidden ones included, as sorted paths relative to it. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1))
    .sort();
}
