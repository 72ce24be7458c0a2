import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ManualClock } from '../clock';
import { createHttpApp } from '../http';
import { silentLogger } from '../logging';
import { INTERNAL_IDENTITY_HEADER, requireInternalIdentity } from './middleware';
import {
  INTERNAL_AUDIENCE,
  INTERNAL_ISSUER,
  mintInternalToken,
  verifyInternalToken,
  type InternalIdentity,
} from './token';

const secret = 'a-test-secret-that-is-at-least-32-characters-long';
const otherSecret = 'another-secret-that-is-at-least-32-characters-long';
const issuedAt = new Date('2026-03-01T12:00:00.000Z');

const identity: InternalIdentity = {
  organizationId: 'org-1',
  projectId: 'project-1',
  userId: 'user-1',
  role: 'member',
  scopes: ['public-api'],
  tokenId: 'token-1',
};

function serviceApp(clock: ManualClock) {
  const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'test-service' });
  app.use(requireInternalIdentity({ secret, clock }));
  app.get('/whoami', (_req, res) => {
    res.json({ success: true, data: res.locals.identity });
  });
  finish(app);
  return app;
}

/** Re-encodes the payload segment of a JWT, keeping header and signature: a forged claim. */
function withPayload(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  change(claims);
  return [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
}

function signed(claims: object, options: jwt.SignOptions, key = secret): string {
  return jwt.sign({ ...claims, iat: Math.floor(issuedAt.getTime() / 1_000) }, key, options);
}

const standard: jwt.SignOptions = {
  algorithm: 'HS256',
  audience: INTERNAL_AUDIENCE,
  issuer: INTERNAL_ISSUER,
  expiresIn: 60,
};

describe('internal identity between the gateway and the services', () => {
  let clock: ManualClock;

  beforeEach(() => {
    clock = new ManualClock(issuedAt);
  });

  async function callWith(token: string | undefined) {
    const call = request(serviceApp(clock)).get('/whoami');
    return token === undefined ? call : call.set(INTERNAL_IDENTITY_HEADER, token);
  }

  function expectUnauthorized(response: request.Response, message?: RegExp) {
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: expect.any(String) },
    });
    if (message) expect(response.body.error.message).toMatch(message);
  }

  it('when the gateway mints a token, then the service sees the same identity on res.locals', async () => {
    const response = await callWith(mintInternalToken(identity, { secret, now: issuedAt }));
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(identity);
  });

  it('when the token is checked within its lifetime, then it is accepted up to the last second', async () => {
    const token = mintInternalToken(identity, { secret, now: issuedAt, ttlSeconds: 30 });
    clock.advance(29_000);
    expect((await callWith(token)).status).toBe(200);
  });

  it('when the identity carries extra fields, then only the identity claims are signed', () => {
    const token = mintInternalToken({ ...identity, secretHash: 'abc' } as InternalIdentity, {
      secret,
      now: issuedAt,
    });
    expect(jwt.decode(token)).not.toHaveProperty('secretHash');
  });

  it('when the header is missing, then 401 UNAUTHORIZED', async () => {
    expectUnauthorized(await callWith(undefined), /missing/i);
  });

  it('when the header is not a JWT, then 401 UNAUTHORIZED', async () => {
    expectUnauthorized(await callWith('not-a-jwt'));
  });

  it('when the token has expired, then 401 UNAUTHORIZED', async () => {
    const token = mintInternalToken(identity, { secret, now: issuedAt, ttlSeconds: 60 });
    clock.advance(120_000);
    expectUnauthorized(await callWith(token), /expired/i);
  });

  it('when the payload was tampered with, then 401 UNAUTHORIZED', async () => {
    const token = mintInternalToken(identity, { secret, now: issuedAt });
    expectUnauthorized(
      await callWith(
        withPayload(token, (claims) => {
          claims.role = 'owner';
        }),
      ),
    );
  });

  it('when the token was signed with another secret, then 401 UNAUTHORIZED', async () => {
    expectUnauthorized(await callWith(mintInternalToken(identity, { secret: otherSecret, now: issuedAt })));
  });

  it('when the token is meant for another audience, then 401 UNAUTHORIZED', async () => {
    expectUnauthorized(await callWith(signed(identity, { ...standard, audience: 'someone-else' })));
  });

  it('when the token comes from another issuer, then 401 UNAUTHORIZED', async () => {
    expectUnauthorized(await callWith(signed(identity, { ...standard, issuer: 'someone-else' })));
  });

  it('when the token is unsigned (alg none), then 401 UNAUTHORIZED', async () => {
    const unsigned = jwt.sign({ ...identity, iat: Math.floor(issuedAt.getTime() / 1_000) }, '', {
      ...standard,
      algorithm: 'none',
    });
    expectUnauthorized(await callWith(unsigned));
  });

  it('when the token has no expiry, then 401 UNAUTHORIZED', async () => {
    const { expiresIn: _ignored, ...noExpiry } = standard;
    expectUnauthorized(await callWith(signed(identity, noExpiry)));
  });

  it('when a correctly signed token lacks an identity claim, then 401 UNAUTHORIZED', async () => {
    const { role: _role, ...withoutRole } = identity;
    expectUnauthorized(await callWith(signed(withoutRole, standard)));
  });

  it('when a lifetime beyond the maximum is asked for, then minting refuses', () => {
    expect(() => mintInternalToken(identity, { secret, ttlSeconds: 3_600 })).toThrow(RangeError);
  });

  it('when the secret is shorter than 32 characters, then minting, verifying and mounting refuse', () => {
    expect(() => mintInternalToken(identity, { secret: 'short' })).toThrow(RangeError);
    expect(() => verifyInternalToken('x.y.z', { secret: 'short' })).toThrow(RangeError);
    expect(() => requireInternalIdentity({ secret: 'short' })).toThrow(RangeError);
  });
});
