// When the distributed launcher brings a crashed service back: after a delay that doubles with each quick
// crash, up to a ceiling, and starts again from the first delay once the service had stayed up a while.
// It never gives up, as Docker's `restart: unless-stopped` and Kubernetes' CrashLoopBackOff do not: a
// service that crashes while PostgreSQL or Kafka restarts must come back when they do.
'use strict';

const RESTART_POLICY = Object.freeze({ firstDelayMs: 500, maxDelayMs: 30_000, resetAfterMs: 60_000 });

/**
 * The number of quick crashes in a row, this exit included: one that ends a run of `resetAfterMs` or more
 * starts a new streak. `nextStreak(0, 1_000)` is 1.
 */
function nextStreak(streak, uptimeMs, policy = RESTART_POLICY) {
  return uptimeMs >= policy.resetAfterMs ? 1 : streak + 1;
}

/** The delay before restarting after the `streak`-th quick crash in a row: 0.5 s, 1 s, 2 s, … 30 s. */
function restartDelay(streak, policy = RESTART_POLICY) {
  const doublings = Math.max(0, streak - 1);
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(doublings, 30));
}

/** A delay as the launcher's log writes it: `0.5 s`, `30 s`. */
function describeDelay(ms) {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

module.exports = { RESTART_POLICY, nextStreak, restartDelay, describeDelay };
