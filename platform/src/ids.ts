import { createHash, randomBytes, randomFillSync } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

// Randomness drawn 4 KiB at a time, as crypto.randomUUID() does: one call into OpenSSL per 256 ids
// instead of one or two per id (a request id per request made that visible in a busy gateway).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomInto(target: Buffer): Buffer {
  if (poolOffset + target.length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, 0, poolOffset, poolOffset + target.length);
  poolOffset += target.length;
  return target;
}

/**
 * A UUID version 7 (RFC 9562): time-ordered, so ids created together sit together in B-tree indexes.
 * Monotonic within a process: ids minted in the same millisecond keep their creation order.
 *
 * @example const eventId = newId();
 */
export function newId(now: number = Date.now()): string {
  if (now <= lastMs) {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1;
    now = lastMs;
  } else {
    lastMs = now;
    sequence = randomInto(Buffer.allocUnsafe(2)).readUInt16BE() & 0x7ff;
  }
  const bytes = randomInto(Buffer.allocUnsafe(16));
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A URL-safe random secret of `bytes` bytes of entropy (tokens, signing secrets). */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * A UUID (version 8, RFC 9562) derived from SHA-256 of its parts: the same parts always give the same id,
 * so an event appended again with it (a retried request, a result sent twice) is found instead of
 * recorded twice, and a link made twice is one.
 *
 * @example const eventId = derivedId(runId, 'artifact', sha256, name);
 */
export function derivedId(...parts: string[]): string {
  const bytes = createHash('sha256').update(JSON.stringify(parts)).digest().subarray(0, 16);
  bytes[6] = 0x80 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
