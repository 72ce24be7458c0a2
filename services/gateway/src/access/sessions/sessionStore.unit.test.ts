import { createMemoryKeyValue, ManualClock } from '@verdict/platform';
import { createSessionStore } from './sessionStore';

const MINUTE = 60_000;

function store(idleMinutes = 30) {
  const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
  const kv = createMemoryKeyValue({ clock });
  return { clock, kv, sessions: createSessionStore({ kv, clock, idleTimeoutMs: idleMinutes * MINUTE }) };
}

describe('the web session store', () => {
  it('when a session is opened, then its cookie finds it, and the store keeps only a hash of the cookie', async () => {
    const { sessions, kv } = store();
    const { cookieValue, session } = await sessions.open({ tokenId: 't1', userId: 'u1' });
    expect(await sessions.find(cookieValue)).toEqual(session);
    expect(session.key).not.toContain(cookieValue);
    expect(await kv.get(session.key)).not.toContain(cookieValue);
  });

  it('when a session sees no request for its idle timeout, then it has ended', async () => {
    const { sessions, clock } = store(30);
    const { cookieValue } = await sessions.open({ tokenId: 't1', userId: 'u1' });
    clock.advance(29 * MINUTE);
    expect(await sessions.find(cookieValue)).not.toBeNull();
    clock.advance(2 * MINUTE);
    expect(await sessions.find(cookieValue)).toBeNull();
  });

  it('when a session is used, then its idle timeout starts again (renewed at most once a minute)', async () => {
    const { sessions, clock } = store(30);
    const { cookieValue } = await sessions.open({ tokenId: 't1', userId: 'u1' });
    for (let step = 0; step < 4; step += 1) {
      clock.advance(20 * MINUTE);
      const found = await sessions.find(cookieValue);
      expect(found).not.toBeNull();
      await sessions.renew(found!);
    }
    clock.advance(31 * MINUTE);
    expect(await sessions.find(cookieValue)).toBeNull();
  });

  it('when a session ends, then its cookie finds nothing', async () => {
    const { sessions } = store();
    const { cookieValue, session } = await sessions.open({ tokenId: 't1', userId: 'u1' });
    await sessions.end(session);
    expect(await sessions.find(cookieValue)).toBeNull();
  });

  it('when a CSRF token is checked, then only the exact one of the session matches', async () => {
    const { sessions } = store();
    const { session } = await sessions.open({ tokenId: 't1', userId: 'u1' });
    expect(sessions.csrfMatches(session, session.csrfToken)).toBe(true);
    expect(sessions.csrfMatches(session, undefined)).toBe(false);
    expect(sessions.csrfMatches(session, `${session.csrfToken}x`)).toBe(false);
    expect(sessions.csrfMatches(session, session.csrfToken.toUpperCase())).toBe(false);
  });

  it('when a sign-in code is redeemed, then it names its token once; expired, it names nothing', async () => {
    const { sessions, clock } = store();
    const code = await sessions.issueSignInCode('t1', 10 * MINUTE);
    expect(await sessions.redeemSignInCode(code)).toBe('t1');
    expect(await sessions.redeemSignInCode(code)).toBeNull();
    const late = await sessions.issueSignInCode('t2', 10 * MINUTE);
    clock.advance(11 * MINUTE);
    expect(await sessions.redeemSignInCode(late)).toBeNull();
    expect(await sessions.redeemSignInCode('not a code')).toBeNull();
  });

  it('when the idle timeout is shorter than a minute, then the store refuses to be made', () => {
    const clock = new ManualClock(new Date());
    expect(() =>
      createSessionStore({ kv: createMemoryKeyValue({ clock }), clock, idleTimeoutMs: 1000 }),
    ).toThrow(RangeError);
  });
});
