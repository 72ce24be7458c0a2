import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The webhook signature of spec §6, both halves: the dispatcher signs with `signWebhook`, a receiver checks
 * with `verifySignature`. The signed message is `<unix seconds>.<raw body bytes>`, the MAC HMAC-SHA256 keyed
 * with the subscription's secret (its UTF-8 bytes, `whsec_` prefix included), hex-encoded; the header is
 * `X-Service-Signature: t=<unix seconds>,v1=<hex>`.
 */

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

type RawBody = string | Uint8Array;

const bytesOf = (body: RawBody): Buffer =>
  typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);

function mac(secret: string, timestamp: number, body: RawBody): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(bytesOf(body)).digest();
}

/**
 * The X-Service-Signature value for a body sent at `timestamp` (unix seconds).
 *
 * @example signWebhook(body, secret, Math.floor(Date.now() / 1000)) // 't=1767225600,v1=5d41…'
 */
export function signWebhook(rawBody: RawBody, secret: string, timestamp: number): string {
  return `t=${timestamp},v1=${mac(secret, timestamp, rawBody).toString('hex')}`;
}

export type SignatureCheck =
  | { valid: true; timestamp: number }
  | { valid: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' };

export interface VerifySignatureOptions {
  /** Largest difference between the signature's timestamp and `now`, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (default: the current time). */
  now?: Date | number;
}

/**
 * Checks a delivery the way spec §6 tells receivers to: over the raw body bytes (never re-serialized JSON),
 * in constant time, refusing a timestamp more than `toleranceSeconds` away from `now`. Several `v1=` entries
 * are allowed (any one matching is enough).
 *
 * @example const check = verifySignature(req.rawBody, req.get('X-Service-Signature'), process.env.WEBHOOK_SECRET); if (!check.valid) return res.sendStatus(401);
 */
export function verifySignature(
  rawBody: RawBody,
  header: string | null | undefined,
  secret: string,
  options: VerifySignatureOptions = {},
): SignatureCheck {
  if (header === undefined || header === null || header.trim() === '')
    return { valid: false, reason: 'missing' };
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) return { valid: false, reason: 'malformed' };
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== null) return { valid: false, reason: 'malformed' };
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return { valid: false, reason: 'malformed' };
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes (a future v2) are ignored, as an older receiver should.
  }
  if (timestamp === null || signatures.length === 0) return { valid: false, reason: 'malformed' };
  const nowMs = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  const tolerance = options.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  if (Math.abs(nowMs / 1_000 - timestamp) > tolerance) return { valid: false, reason: 'stale' };
  const expected = mac(secret, timestamp, rawBody);
  // Compare against every candidate, without stopping early, so the timing says nothing about which matched.
  let matched = false;
  for (const candidate of signatures) matched = timingSafeEqual(candidate, expected) || matched;
  return matched ? { valid: true, timestamp } : { valid: false, reason: 'mismatch' };
}

/**
 * The Standard Webhooks signature (`webhook-signature: v1,<base64>`), for receivers using its verifiers:
 * HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64 part of the `whsec_`
 * secret decoded.
 *
 * @example standardWebhookSignature(deliveryId, timestamp, body, secret) // 'v1,K5oZ…='
 */
export function standardWebhookSignature(
  messageId: string,
  timestamp: number,
  rawBody: RawBody,
  secret: string,
): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const signature = createHmac('sha256', key)
    .update(`${messageId}.${timestamp}.`, 'utf8')
    .update(bytesOf(rawBody))
    .digest('base64');
  return `v1,${signature}`;
}
