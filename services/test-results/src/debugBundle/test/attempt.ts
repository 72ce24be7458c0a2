import { ValidationError } from '@verdict/platform';

/**
 * The attempt to show: the requested one, or the latest. An index beyond the test's attempts is a
 * 400 INVALID_ATTEMPT (spec §4.2), not a VALIDATION_ERROR: the query was well formed.
 *
 * @example const attempt = resolveAttempt(request.attempt, results.length);
 */
export function resolveAttempt(requested: number | undefined, attemptsCount: number): number {
  if (requested === undefined) {
    assertAttemptInRange(0, attemptsCount);
    return attemptsCount - 1;
  }
  assertAttemptInRange(requested, attemptsCount);
  return requested;
}

/**
 * Throws 400 INVALID_ATTEMPT unless `attempt` is one of the test's 0-based attempt indexes.
 *
 * @example assertAttemptInRange(request.attempt, attempts.length);
 */
export function assertAttemptInRange(attempt: number, attemptsCount: number): void {
  if (Number.isInteger(attempt) && attempt >= 0 && attempt < attemptsCount) return;
  const range =
    attemptsCount > 0
      ? `this test has ${attemptsCount} attempt${attemptsCount === 1 ? '' : 's'} (0 to ${attemptsCount - 1})`
      : 'this test has no attempts in this run';
  throw new ValidationError(
    `attempt: ${attempt} is out of range; ${range}`,
    { attempt, attempts: attemptsCount },
    'INVALID_ATTEMPT',
  );
}
