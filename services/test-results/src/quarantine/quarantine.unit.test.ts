import {
  TestQuarantined,
  TestQuarantineExpired,
  TestQuarantineExtended,
  TestQuarantineLifted,
  TestQuarantineSignaturesChanged,
  type QuarantineEvent,
} from '@verdict/contracts';
import { given } from '@verdict/platform/testing';
import {
  evolve,
  forgives,
  quarantineDecider,
  type QuarantineCommand,
  type QuarantineState,
} from './quarantine';

const now = new Date('2026-03-01T10:00:00.000Z');
const days = (n: number, from = now) => new Date(from.getTime() + n * 86_400_000);
const target = { testCaseId: 'tc-1', file: 'tests/cart.spec.ts', titlePath: ['Cart', 'pays'], project: null };
const timeout = {
  id: 'a1b2c3d4e5f6',
  text: 'TimeoutError: locator.click at tests/cart.spec.ts',
  occurrences: 4,
};
const refused = { id: '0123456789ab', text: 'Error: connect ECONNREFUSED <ip>:<port>', occurrences: 1 };
const evidence = { signatures: [timeout], flakyRate: 0.2, failRate: 0.05, runsSeen: 40 };

const quarantine = (overrides: Partial<Extract<QuarantineCommand, { type: 'quarantine' }>> = {}) =>
  ({
    type: 'quarantine',
    quarantineId: 'q-1',
    projectId: 'p-1',
    target,
    reason: 'Flaky click on the pay button, PAY-123',
    ownerId: 'user-ada',
    expiresAt: days(14),
    evidence,
    releaseRule: { cleanRuns: 10 },
    automatic: false,
    by: 'user-bob',
    now,
    ...overrides,
  }) satisfies QuarantineCommand;

const quarantined = TestQuarantined.of({
  quarantineId: 'q-1',
  projectId: 'p-1',
  target,
  reason: 'Flaky click on the pay button, PAY-123',
  ownerId: 'user-ada',
  expiresAt: days(14).toISOString(),
  evidence,
  releaseRule: { cleanRuns: 10 },
  automatic: false,
  by: 'user-bob',
  at: now.toISOString(),
});

const stateAfter = (events: QuarantineEvent[]): QuarantineState =>
  events.reduce(evolve, quarantineDecider.initialState());

describe('a quarantine', () => {
  it('when a member quarantines a test with a reason, an owner and an expiry within 90 days, then it is quarantined with its evidence', () => {
    given(quarantineDecider, []).when(quarantine()).then([quarantined]);
  });

  it('when the expiry is in the past, now, or beyond 90 days, then it is refused naming expiresAt', () => {
    for (const expiresAt of [days(-1), now, days(90.001), new Date('nonsense')]) {
      given(quarantineDecider, [])
        .when(quarantine({ expiresAt }))
        .thenRefuses({ code: 'VALIDATION_ERROR', message: /^expiresAt: / });
    }
    given(quarantineDecider, [])
      .when(quarantine({ expiresAt: days(90) }))
      .then([TestQuarantined.of({ ...quarantined.data, expiresAt: days(90).toISOString() })]);
  });

  it('when the reason is blank, then it is refused; when the quarantine exists already, then 409', () => {
    given(quarantineDecider, [])
      .when(quarantine({ reason: '  ' }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /^reason: / });
    given(quarantineDecider, [quarantined]).when(quarantine()).thenRefuses({ code: 'CONFLICT' });
  });

  it('when it is extended to a later expiry, then the new expiry is kept; an earlier one, or beyond 90 days from now, is refused', () => {
    const later = days(30);
    given(quarantineDecider, [quarantined])
      .when({ type: 'extend', expiresAt: later, by: 'user-ada', now: days(1) })
      .then([
        TestQuarantineExtended.of({
          quarantineId: 'q-1',
          expiresAt: later.toISOString(),
          by: 'user-ada',
          at: days(1).toISOString(),
        }),
      ]);
    given(quarantineDecider, [quarantined])
      .when({ type: 'extend', expiresAt: days(7), by: 'user-ada', now: days(1) })
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /later than the current expiry/ });
    given(quarantineDecider, [quarantined])
      .when({ type: 'extend', expiresAt: days(92), by: 'user-ada', now: days(1) })
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /at most 90 days/ });
  });

  it('when it is lifted, then it ends; lifting or extending it again is 409', () => {
    const lifted = TestQuarantineLifted.of({
      quarantineId: 'q-1',
      reason: 'Fixed in PAY-123',
      automatic: false,
      by: 'user-ada',
      at: days(2).toISOString(),
    });
    given(quarantineDecider, [quarantined])
      .when({ type: 'lift', reason: 'Fixed in PAY-123', automatic: false, by: 'user-ada', now: days(2) })
      .then([lifted]);
    given(quarantineDecider, [quarantined, lifted])
      .when({ type: 'lift', reason: 'again', automatic: false, by: 'user-ada', now: days(3) })
      .thenRefuses({ code: 'CONFLICT', message: /is lifted/ });
    given(quarantineDecider, [quarantined, lifted])
      .when({ type: 'extend', expiresAt: days(20), by: 'user-ada', now: days(3) })
      .thenRefuses({ code: 'CONFLICT' });
  });

  it('when the clock passes its expiry, then the sweep expires it once; before the expiry the sweep does nothing', () => {
    given(quarantineDecider, [quarantined])
      .when({ type: 'expire', now: days(13) })
      .then([]);
    const expired = TestQuarantineExpired.of({
      quarantineId: 'q-1',
      expiredAt: days(14).toISOString(),
      at: days(15).toISOString(),
    });
    given(quarantineDecider, [quarantined])
      .when({ type: 'expire', now: days(15) })
      .then([expired]);
    given(quarantineDecider, [quarantined, expired])
      .when({ type: 'expire', now: days(16) })
      .then([]);
  });

  it('when its expiry has passed but the sweep has not run yet, then it forgives nothing and cannot be extended', () => {
    const state = stateAfter([quarantined]);
    expect(forgives(state, timeout.id, days(13))).toBe(true);
    expect(forgives(state, timeout.id, days(14))).toBe(false);
    given(quarantineDecider, [quarantined])
      .when({ type: 'extend', expiresAt: days(30), by: 'user-ada', now: days(15) })
      .thenRefuses({ code: 'CONFLICT', message: /is expired/ });
  });

  it('when a failure has a signature of its evidence, then it is forgiven; a new signature, or none, is not', () => {
    const state = stateAfter([quarantined]);
    expect(forgives(state, timeout.id, days(1))).toBe(true);
    expect(forgives(state, refused.id, days(1))).toBe(false);
    expect(forgives(state, null, days(1))).toBe(false);
  });

  it('when its signatures are edited, then the new ones are forgiven instead; the same set again changes nothing', () => {
    const changed = TestQuarantineSignaturesChanged.of({
      quarantineId: 'q-1',
      signatures: [timeout, refused],
      by: 'user-ada',
      at: days(1).toISOString(),
    });
    given(quarantineDecider, [quarantined])
      .when({ type: 'changeSignatures', signatures: [timeout, refused], by: 'user-ada', now: days(1) })
      .then([changed]);
    expect(forgives(stateAfter([quarantined, changed]), refused.id, days(2))).toBe(true);
    given(quarantineDecider, [quarantined, changed])
      .when({ type: 'changeSignatures', signatures: [refused, timeout], by: 'user-ada', now: days(2) })
      .then([]);
    given(quarantineDecider, [quarantined])
      .when({ type: 'changeSignatures', signatures: [], by: 'user-ada', now: days(1) })
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /^signatures: / });
  });

  it('when a command names a quarantine that was never made, then 404', () => {
    given(quarantineDecider, [])
      .when({ type: 'lift', reason: 'x', automatic: false, by: 'user-ada', now })
      .thenRefuses({ code: 'NOT_FOUND' });
  });
});
