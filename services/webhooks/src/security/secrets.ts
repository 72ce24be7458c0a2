/**
 * Signing secrets: generated on create, shown once, stored only encrypted (AES-256-GCM). The key is
 * derived (HKDF-SHA256) from a configured master secret, so a database dump alone reveals no secret.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A new signing secret in the Standard Webhooks form, `whsec_` + base64 of 24 random bytes.
 *
 * @example const secret = newSigningSecret(); // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
 */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

/**
 * Encrypts and decrypts signing secrets with a key derived from `masterSecret`.
 *
 * @example const box = createSecretBox(config.webhookSecretKey); const stored = box.seal(secret);
 */
export function createSecretBox(masterSecret: string): SecretBox {
  if (masterSecret.length < 32) throw new RangeError('The webhook secret key must be at least 32 characters');
  const key = Buffer.from(
    hkdfSync('sha256', masterSecret, 'verdict-webhooks', 'webhook-signing-secrets', 32),
  );
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed) {
      const [format, encoded] = sealed.split(':');
      if (format !== FORMAT || encoded === undefined) throw new Error('Unknown sealed secret format');
      const raw = Buffer.from(encoded, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}
