import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Express } from 'express';
import pino from 'pino';
import request from 'supertest';
import { ManualClock } from '../clock';
import { ValidationError } from '../errors';
import { createHttpApp } from '../http/app';
import {
  DEFAULT_SIGNED_URL_TTL_MS,
  safeFilename,
  serveSignedBlobs,
  signBlobUrl,
  verifyBlobSignature,
} from './signedUrl';
import type { BlobContent, BlobMetadata, BlobStore } from './types';

const SECRET = 'a-test-secret-of-at-least-32-characters';
const BASE_URL = 'http://verdict.test';
const START = '2026-03-01T10:00:00.000Z';

describe('signBlobUrl and verifyBlobSignature', () => {
  const expiresAt = new Date(Date.parse(START) + DEFAULT_SIGNED_URL_TTL_MS);
  const signed = () =>
    partsOf(signBlobUrl({ baseUrl: BASE_URL, path: '/blobs', key: 'p1/r1/a1', expiresAt, secret: SECRET }));

  it('when a URL is signed, then it points at path/key with expires in unix seconds and a base64url signature', () => {
    const url = new URL(
      signBlobUrl({
        baseUrl: `${BASE_URL}/verdict/`,
        path: '/blobs',
        key: 'p1/r1/a1',
        expiresAt,
        secret: SECRET,
      }),
    );

    expect(url.origin + url.pathname).toBe(`${BASE_URL}/verdict/blobs/p1/r1/a1`);
    expect(url.searchParams.get('expires')).toBe(String(Date.parse('2026-03-01T10:15:00.000Z') / 1000));
    expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('when the default lifetime is asked for, then it is 15 minutes', () => {
    expect(DEFAULT_SIGNED_URL_TTL_MS).toBe(15 * 60 * 1000);
  });

  it('when nothing was changed and the link has not expired, then the check is ok', () => {
    expect(verifyBlobSignature({ ...signed(), path: '/blobs', secret: SECRET, now: new Date(START) })).toBe(
      'ok',
    );
  });

  it.each([
    ['the path', { path: '/other' }],
    ['the key', { key: 'p1/r1/a2' }],
    ['the expiry', { expires: String(Date.parse('2026-03-01T11:00:00.000Z') / 1000) }],
    [
      'the expiry (to a zero-padded spelling of itself)',
      { expires: `0${Date.parse('2026-03-01T10:15:00.000Z') / 1000}` },
    ],
    ['the signature', { signature: 'A'.repeat(43) }],
    ['the signature by one character', { signature: flipLast(signed().signature) }],
    ['the secret', { secret: 'another-secret-of-at-least-32-characters' }],
  ])('when %s is changed, then the check is invalid', (_part, change) => {
    const check = verifyBlobSignature({
      ...signed(),
      path: '/blobs',
      secret: SECRET,
      now: new Date(START),
      ...change,
    });
    expect(check).toBe('invalid');
  });

  it('when the clock reaches the expiry, then the check is expired, and ok a second before', () => {
    const clock = new ManualClock(START);
    clock.advance(DEFAULT_SIGNED_URL_TTL_MS - 1000);
    expect(verifyBlobSignature({ ...signed(), path: '/blobs', secret: SECRET, now: clock.now() })).toBe('ok');
    clock.advance(1000);
    expect(verifyBlobSignature({ ...signed(), path: '/blobs', secret: SECRET, now: clock.now() })).toBe(
      'expired',
    );
  });

  it('when an expired link was also tampered with, then the check is invalid, not expired', () => {
    const now = new Date(Date.parse(START) + DEFAULT_SIGNED_URL_TTL_MS * 2);
    const check = verifyBlobSignature({ ...signed(), key: 'p1/r1/a2', path: '/blobs', secret: SECRET, now });
    expect(check).toBe('invalid');
  });

  it('when the key is not a valid blob key, then signing throws ValidationError', () => {
    expect(() =>
      signBlobUrl({ baseUrl: BASE_URL, path: '/blobs', key: '../etc/passwd', expiresAt, secret: SECRET }),
    ).toThrow(ValidationError);
  });

  it('when the secret is shorter than 32 characters or the path is not absolute, then signing throws', () => {
    expect(() =>
      signBlobUrl({ baseUrl: BASE_URL, path: '/blobs', key: 'a', expiresAt, secret: 'short' }),
    ).toThrow(/secret/);
    expect(() =>
      signBlobUrl({ baseUrl: BASE_URL, path: 'blobs', key: 'a', expiresAt, secret: SECRET }),
    ).toThrow(/path/);
    expect(() =>
      signBlobUrl({ baseUrl: BASE_URL, path: '/a/../b', key: 'a', expiresAt, secret: SECRET }),
    ).toThrow(/path/);
  });
});

describe('safeFilename', () => {
  it.each([
    ['trace.zip', 'trace.zip'],
    ['p1/r1/screenshot-1.png', 'screenshot-1.png'],
    ['C:\\Users\\me\\report.html', 'report.html'],
    ['résumé final.pdf', 'resume_final.pdf'],
    ['evil"; filename=x.exe', 'evil_filename_x.exe'],
    ['line\r\nbreak.txt', 'line_break.txt'],
    ['.bashrc', 'bashrc'],
    ['../../..', 'download'],
    ['', 'download'],
    [`${'n'.repeat(200)}.webm`, `${'n'.repeat(115)}.webm`],
  ])('when the name is %j, then the download is named %j', (name, expected) => {
    expect(safeFilename(name)).toBe(expected);
  });
});

describe('serveSignedBlobs', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  let clock: ManualClock;
  let store: FakeBlobStore;
  let app: Express;
  let logLines: string[];

  beforeEach(() => {
    clock = new ManualClock(START);
    store = fakeBlobStore({
      'p1/r1/shot': { bytes: png, contentType: 'image/png', filename: 'login page.png' },
      'p1/r1/other': { bytes: Buffer.from('other'), contentType: 'text/plain' },
    });
    logLines = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => logLines.push(line) });
    const http = createHttpApp({ logger, service: 'test' });
    http.app.use('/blobs', serveSignedBlobs({ store, secret: SECRET, clock }));
    http.app.use('/mirror', serveSignedBlobs({ store, secret: SECRET, clock }));
    http.finish(http.app);
    app = http.app;
  });

  /** The path and query of a URL signed now for `key`, valid for the default 15 minutes. */
  const signedPath = (key: string, path = '/blobs') => {
    const expiresAt = new Date(clock.now().getTime() + DEFAULT_SIGNED_URL_TTL_MS);
    const url = new URL(signBlobUrl({ baseUrl: BASE_URL, path, key, expiresAt, secret: SECRET }));
    return url.pathname + url.search;
  };

  it('when the link is valid, then 200 streams the bytes with type, length, attachment name and private caching', async () => {
    const url = signedPath('p1/r1/shot');
    clock.advance(60_000);

    const res = await request(app).get(url).responseType('blob');

    expect(res.status).toBe(200);
    expect(res.body).toEqual(png);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(png.length));
    expect(res.headers['content-disposition']).toBe('attachment; filename="login_page.png"');
    expect(res.headers['cache-control']).toBe('private, max-age=840');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  /** A link that names the download and its type, as a service signs it from what it recorded. */
  const describedPath = (key: string, filename: string, contentType: string) => {
    const expiresAt = new Date(clock.now().getTime() + DEFAULT_SIGNED_URL_TTL_MS);
    const url = new URL(
      signBlobUrl({
        baseUrl: BASE_URL,
        path: '/blobs',
        key,
        expiresAt,
        secret: SECRET,
        filename,
        contentType,
      }),
    );
    return url.pathname + url.search;
  };

  it('when the link names the download and its type, then they win over the blob’s own', async () => {
    const res = await request(app).get(describedPath('p1/r1/shot', 'report page.png', 'image/x-shot'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-shot');
    expect(res.headers['content-disposition']).toBe('attachment; filename="report_page.png"');
    const head = await request(app).head(describedPath('p1/r1/shot', 'a.png', 'image/png'));
    expect(head.headers['content-disposition']).toBe('attachment; filename="a.png"');
  });

  it.each([
    ['the name', (url: string) => url.replace('name=report.txt', 'name=evil.html')],
    ['the type', (url: string) => url.replace('type=text%2Fplain', 'type=text%2Fhtml')],
    ['the name, dropped', (url: string) => url.replace('name=report.txt&', '')],
  ])('when %s of a described link is changed, then 403', async (_, tamper) => {
    const url = describedPath('p1/r1/shot', 'report.txt', 'text/plain');
    expect(url).toContain('name=report.txt&type=text%2Fplain');
    const res = await request(app).get(tamper(url));
    expect(res.status).toBe(403);
  });

  it('when the blob has no file name, then the attachment is named after the last key segment', async () => {
    const res = await request(app).get(signedPath('p1/r1/other'));

    expect(res.status).toBe(200);
    expect(res.text).toBe('other');
    expect(res.headers['content-disposition']).toBe('attachment; filename="other"');
  });

  it.each([
    ['the key', (url: string) => url.replace('/p1/r1/shot?', '/p1/r1/other?')],
    [
      'the expiry',
      (url: string) => url.replace(/expires=(\d+)/, (_m, s: string) => `expires=${Number(s) + 3600}`),
    ],
    ['the signature', (url: string) => url.replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`)],
    ['the path', (url: string) => url.replace('/blobs/', '/mirror/')],
  ])('when %s is tampered with, then 403 FORBIDDEN', async (_part, tamper) => {
    const res = await request(app).get(tamper(signedPath('p1/r1/shot')));

    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'FORBIDDEN', message: 'The download link is not valid' },
    });
  });

  it('when a link is signed for another mount, then that mount serves it: the mount path is the signed path', async () => {
    const res = await request(app).get(signedPath('p1/r1/other', '/mirror'));
    expect(res.status).toBe(200);
  });

  it('when the link has expired, then 403 FORBIDDEN', async () => {
    const url = signedPath('p1/r1/shot');
    clock.advance(DEFAULT_SIGNED_URL_TTL_MS);

    const res = await request(app).get(url);

    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'FORBIDDEN', message: 'The download link has expired' },
    });
  });

  it.each([
    ['no query at all', (url: string) => url.slice(0, url.indexOf('?'))],
    ['no signature', (url: string) => url.replace(/&signature=[^&]+/, '')],
    ['no expiry', (url: string) => url.replace(/expires=\d+&/, '')],
    ['the signature twice', (url: string) => `${url}&${url.slice(url.indexOf('signature='))}`],
  ])('when the link has %s, then 403 FORBIDDEN', async (_case, strip) => {
    const res = await request(app).get(strip(signedPath('p1/r1/shot')));

    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'FORBIDDEN', message: 'The download link is not signed' },
    });
  });

  it('when a validly signed key has no blob, then 404 NOT_FOUND', async () => {
    const res = await request(app).get(signedPath('p1/r1/gone'));

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Blob not found' } });
  });

  it('when an unsigned request names a missing blob, then 403, so existence is not given away', async () => {
    const res = await request(app).get('/blobs/p1/r1/gone');
    expect(res.status).toBe(403);
  });

  it('when the request is HEAD, then 200 with the headers, no body, and no blob opened', async () => {
    const res = await request(app).head(signedPath('p1/r1/shot'));

    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(png.length));
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('private, max-age=900');
    expect(res.text).toBeUndefined();
    expect(store.opened).toEqual([]);
  });

  it('when HEAD names a missing blob or has an expired link, then 404 and 403', async () => {
    expect((await request(app).head(signedPath('p1/r1/gone'))).status).toBe(404);
    const url = signedPath('p1/r1/shot');
    clock.advance(DEFAULT_SIGNED_URL_TTL_MS);
    expect((await request(app).head(url)).status).toBe(403);
  });

  it('when reading the blob fails mid-stream, then the response is cut short and the failure is logged', async () => {
    store.failMidStream('p1/r1/shot');

    await expect(request(app).get(signedPath('p1/r1/shot')).responseType('blob')).rejects.toThrow();

    expect(logLines.join('')).toContain('blob download failed mid-stream');
  });
});

type FakeBlobStore = BlobStore & { opened: string[]; failMidStream(key: string): void };

/** An in-memory BlobStore with only what serving needs, recording which blobs were opened. */
function fakeBlobStore(
  initial: Record<string, { bytes: Buffer; contentType: string; filename?: string }>,
): FakeBlobStore {
  const blobs = new Map(Object.entries(initial));
  const failing = new Set<string>();
  const opened: string[] = [];

  const metadataOf = (key: string): BlobMetadata | null => {
    const blob = blobs.get(key);
    if (!blob) return null;
    return {
      key,
      size: blob.bytes.length,
      sha256: createHash('sha256').update(blob.bytes).digest('hex'),
      contentType: blob.contentType,
      ...(blob.filename === undefined ? {} : { filename: blob.filename }),
      createdAt: START,
    };
  };

  return {
    opened,
    failMidStream: (key) => failing.add(key),
    async put() {
      throw new Error('not used by these tests');
    },
    async get(key): Promise<BlobContent | null> {
      const metadata = metadataOf(key);
      const blob = blobs.get(key);
      if (!metadata || !blob) return null;
      opened.push(key);
      const stream = failing.has(key) ? failingAfterFirstByte(blob.bytes) : Readable.from([blob.bytes]);
      return { ...metadata, stream };
    },
    async stat(key) {
      return metadataOf(key);
    },
    async delete(key) {
      blobs.delete(key);
    },
    async ping() {},
  };
}

function failingAfterFirstByte(bytes: Buffer): Readable {
  return Readable.from(
    (async function* () {
      yield bytes.subarray(0, 1);
      throw new Error('disk read failed');
    })(),
  );
}

function partsOf(signedUrl: string): { key: string; expires: string; signature: string } {
  const url = new URL(signedUrl);
  return {
    key: url.pathname.replace(/^\/blobs\//, ''),
    expires: url.searchParams.get('expires') ?? '',
    signature: url.searchParams.get('signature') ?? '',
  };
}

function flipLast(signature: string): string {
  return signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A');
}
