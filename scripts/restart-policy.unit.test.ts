import { describeDelay, nextStreak, restartDelay, RESTART_POLICY } from './restart-policy.cjs';

// The distributed launcher's answer to a crashed service (issue 33): restart it, a little later each time
// it crashes again at once, never giving up.
describe('the restart policy of the distributed launcher', () => {
  it('when a service crashes again and again at once, then the delay doubles from 0.5 s up to 30 s', () => {
    let streak = 0;
    const delays: string[] = [];
    for (let crash = 0; crash < 9; crash += 1) {
      streak = nextStreak(streak, 1_000);
      delays.push(describeDelay(restartDelay(streak)));
    }
    expect(delays).toEqual(['0.5 s', '1 s', '2 s', '4 s', '8 s', '16 s', '30 s', '30 s', '30 s']);
  });

  it('when a service had stayed up for a minute before it crashed, then it is restarted after the first delay again', () => {
    const streak = nextStreak(7, RESTART_POLICY.resetAfterMs);
    expect(streak).toBe(1);
    expect(restartDelay(streak)).toBe(RESTART_POLICY.firstDelayMs);
  });

  it('when a service crashes a thousand times in a row, then the delay stays at its ceiling', () => {
    expect(restartDelay(1_000)).toBe(RESTART_POLICY.maxDelayMs);
  });
});
