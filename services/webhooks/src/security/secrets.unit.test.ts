import { createSecretBox, newSigningSecret } from './secrets';

const key = 'k'.repeat(40);

describe('signing secrets at rest', () => {
  it('when a secret is sealed, then it opens to the same text and never contains it', () => {
    const secret = newSigningSecret();
    const sealed = createSecretBox(key).seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(createSecretBox(key).open(sealed)).toBe(secret);
  });

  it('when the same secret is sealed twice, then the two sealed forms differ (fresh IV)', () => {
    const box = createSecretBox(key);
    expect(box.seal('whsec_x')).not.toBe(box.seal('whsec_x'));
  });

  it('when opened with another key or tampered with, then it fails', () => {
    const sealed = createSecretBox(key).seal('whsec_x');
    expect(() => createSecretBox('z'.repeat(40)).open(sealed)).toThrow();
    // Flip one bit of the ciphertext itself. (Swapping the last base64 character for 'A' left it unchanged
    // whenever it already was 'A', one seal in sixteen.)
    const [format, encoded] = sealed.split(':') as [string, string];
    const raw = Buffer.from(encoded, 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 1;
    const tampered = `${format}:${raw.toString('base64')}`;
    expect(tampered).not.toBe(sealed);
    expect(() => createSecretBox(key).open(tampered)).toThrow();
  });

  it('when the key is shorter than 32 characters, then the box refuses to start', () => {
    expect(() => createSecretBox('short')).toThrow(RangeError);
  });

  it('when a secret is generated, then it is whsec_ and 24 random bytes in base64', () => {
    expect(newSigningSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(newSigningSecret()).not.toBe(newSigningSecret());
  });
});
