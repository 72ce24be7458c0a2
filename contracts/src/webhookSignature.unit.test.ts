import { createHmac, timingSafeEqual } from 'node:crypto';
import { signWebhook, standardWebhookSignature, verifySignature } from './webhookSignature';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = '{"id":"dlv_1","event":"RUN_FINISHED","data":{"run":{"id":"r1"}}}';
const t = 1_767_225_600;
const now = new Date(t * 1000);

describe('verifySignature (spec §6)', () => {
  it('when the header was made with the secret over <t>.<raw body>, then it is valid', () => {
    const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signWebhook(body, secret, t)).toBe(`t=${t},v1=${v1}`);
    expect(verifySignature(body, `t=${t},v1=${v1}`, secret, { now })).toEqual({ valid: true, timestamp: t });
    expect(verifySignature(Buffer.from(body), `t=${t},v1=${v1}`, secret, { now }).valid).toBe(true);
  });

  it('when the body was re-serialized (other bytes), then it is a mismatch', () => {
    const header = signWebhook(body, secret, t);
    const reserialized = JSON.stringify(JSON.parse(body), null, 2);
    expect(verifySignature(reserialized, header, secret, { now })).toEqual({
      valid: false,
      reason: 'mismatch',
    });
  });

  it('when the secret is another one, then it is a mismatch', () => {
    expect(verifySignature(body, signWebhook(body, 'whsec_other', t), secret, { now }).valid).toBe(false);
  });

  it('when the timestamp is more than 300 seconds from now, either way, then it is stale', () => {
    const header = signWebhook(body, secret, t);
    expect(verifySignature(body, header, secret, { now: (t + 300) * 1000 }).valid).toBe(true);
    expect(verifySignature(body, header, secret, { now: (t + 301) * 1000 })).toEqual({
      valid: false,
      reason: 'stale',
    });
    expect(verifySignature(body, header, secret, { now: (t - 301) * 1000 })).toEqual({
      valid: false,
      reason: 'stale',
    });
  });

  it('when toleranceSeconds is given, then it replaces the 300 seconds', () => {
    const header = signWebhook(body, secret, t);
    expect(verifySignature(body, header, secret, { now: (t + 60) * 1000, toleranceSeconds: 30 }).valid).toBe(
      false,
    );
  });

  it('when a stale header is re-signed with a fresh timestamp by someone without the secret, then it is a mismatch', () => {
    const [, v1] = signWebhook(body, secret, t).split(',v1=');
    expect(verifySignature(body, `t=${t + 1000},v1=${v1}`, secret, { now: (t + 1000) * 1000 }).valid).toBe(
      false,
    );
  });

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['v1=abc', 'malformed'],
    [`t=${t}`, 'malformed'],
    [`t=soon,v1=${'a'.repeat(64)}`, 'malformed'],
    [`t=${t},v1=zz`, 'malformed'],
    [`t=${t},t=${t},v1=${'a'.repeat(64)}`, 'malformed'],
  ])('when the header is %p, then it is %s', (header, reason) => {
    expect(verifySignature(body, header, secret, { now })).toEqual({ valid: false, reason });
  });

  it('when the header carries several v1 entries and one matches (secret rotation), then it is valid', () => {
    const good = signWebhook(body, secret, t).split(',v1=')[1];
    expect(verifySignature(body, `t=${t},v1=${'0'.repeat(64)},v1=${good}`, secret, { now }).valid).toBe(true);
  });
});

describe('standardWebhookSignature', () => {
  it('when signing, then it is v1,<base64 HMAC of id.timestamp.body keyed with the decoded whsec_ secret>', () => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`dlv_1.${t}.${body}`).digest('base64');
    expect(standardWebhookSignature('dlv_1', t, body, secret)).toBe(`v1,${expected}`);
  });

  it('when checked against the example of the Standard Webhooks reference libraries, then it gives their signature', () => {
    expect(
      standardWebhookSignature(
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1_614_265_330,
        '{"test": 2432232314}',
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('when a receiver verifies it as the Standard Webhooks spec says, then it is accepted, and refused for other bytes, ids or times', () => {
    const header = standardWebhookSignature('dlv_1', t, body, secret);
    expect(standardVerify({ id: 'dlv_1', timestamp: String(t), signature: header }, body, secret, t)).toBe(
      true,
    );
    // A receiver rotating keys may get several space-separated entries; any v1 match is enough.
    expect(
      standardVerify({ id: 'dlv_1', timestamp: String(t), signature: `v1,AAAA ${header}` }, body, secret, t),
    ).toBe(true);
    expect(standardVerify({ id: 'dlv_2', timestamp: String(t), signature: header }, body, secret, t)).toBe(
      false,
    );
    expect(
      standardVerify({ id: 'dlv_1', timestamp: String(t), signature: header }, `${body} `, secret, t),
    ).toBe(false);
    expect(
      standardVerify({ id: 'dlv_1', timestamp: String(t), signature: header }, body, secret, t + 301),
    ).toBe(false);
  });
});

/**
 * A Standard Webhooks verifier written from its specification (standardwebhooks.com), independent of the
 * code under test: the secret is the base64 after `whsec_`; the signed content `${id}.${timestamp}.${body}`;
 * the header a space-separated list of `v1,<base64 HMAC-SHA256>`; timestamps within 5 minutes.
 */
function standardVerify(
  headers: { id: string; timestamp: string; signature: string },
  payload: string,
  whsec: string,
  nowSeconds: number,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > 5 * 60) return false;
  const key = Buffer.from(whsec.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${headers.id}.${headers.timestamp}.${payload}`).digest();
  return headers.signature.split(' ').some((entry) => {
    const [version, encoded] = entry.split(',');
    if (version !== 'v1' || encoded === undefined) return false;
    const candidate = Buffer.from(encoded, 'base64');
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}
