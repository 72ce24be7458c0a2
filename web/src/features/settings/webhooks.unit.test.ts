import { attemptBadge, attemptOf, currentName, testOutcomeOf } from './webhooks';

describe('webhook values', () => {
  it('when an event has the old spelling, then it reads as the current one', () => {
    expect(currentName('RUN_STARTED')).toBe('run.started');
    expect(currentName('RUN_FINISHED')).toBe('run.finished');
    expect(currentName('run.finished')).toBe('run.finished');
  });

  it('when a delivery is looked up, then its latest attempt is found, or none without an id', () => {
    const log = [
      { deliveryId: 'd1', attempt: 2 },
      { deliveryId: 'd1', attempt: 1 },
    ] as unknown as Parameters<typeof attemptOf>[0];
    expect(attemptOf(log, 'd1')).toMatchObject({ attempt: 2 });
    expect(attemptOf(log, null)).toBeUndefined();
    expect(attemptOf(undefined, 'd1')).toBeUndefined();
  });

  it('when a test event is queued, delivered or failed, then its outcome says so', () => {
    const attempt = { statusCode: null, responseTimeMs: null, error: null };
    expect(testOutcomeOf(undefined)).toEqual({ text: 'Test event queued…', failed: false });
    expect(testOutcomeOf({ ...attempt, status: 'pending' }).text).toBe('Test event queued…');
    expect(testOutcomeOf({ ...attempt, status: 'succeeded', statusCode: 204, responseTimeMs: 12 })).toEqual({
      text: 'Test event delivered: 204 in 12 ms',
      failed: false,
    });
    expect(testOutcomeOf({ ...attempt, status: 'failed', error: 'timeout' })).toEqual({
      text: 'Test event failed: timeout',
      failed: true,
    });
    expect(testOutcomeOf({ ...attempt, status: 'failed' }).text).toBe('Test event failed: no answer');
  });

  it('when an attempt is shown, then its badge is passed, failed or running', () => {
    expect(attemptBadge('succeeded')).toBe('passed');
    expect(attemptBadge('failed')).toBe('failed');
    expect(attemptBadge('pending')).toBe('running');
  });
});
