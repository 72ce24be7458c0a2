import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceUnavailableError } from '../errors';
import type { SqlExecutor } from '../sql/types';

/**
 * Read-your-writes over an asynchronous projection. A write handler appends, then waits here until the
 * projector has recorded the stream at (or beyond) the appended position, so that the client's next
 * request, on any replica, reads what it just wrote. It polls the projector's own per-stream checkpoint
 * (`<schema>.projection_checkpoints`), which commits in the same transaction as the read-model rows.
 */
export interface WaitForProjectionOptions {
  /** Give up after this long with a 503 (default 10 s). */
  timeoutMs?: number;
  /** Pause between two looks (default 5 ms). */
  intervalMs?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Resolves once projection `schema` has applied stream `streamId` up to `streamPosition`; throws a
 * ServiceUnavailableError (retriable, 503) when it has not within the timeout. The write itself is
 * durable by then: the error says the change is not visible yet, not that it was lost.
 *
 * @example await waitForProjection(db, 'identity', `token-${tokenId}`, result.nextExpectedVersion, { timeoutMs: 5_000 });
 */
export async function waitForProjection(
  db: SqlExecutor,
  schema: string,
  streamId: string,
  streamPosition: number,
  options: WaitForProjectionOptions = {},
): Promise<void> {
  if (!IDENTIFIER.test(schema)) throw new TypeError(`Schema name must match ${IDENTIFIER}: ${schema}`);
  if (streamPosition < 1) return;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 5;
  const text = `SELECT stream_position FROM ${schema}.projection_checkpoints WHERE stream_id = $1`;
  // A wall-clock deadline on purpose: this bounds real waiting, whatever the domain's injected clock says.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ stream_position: number }>(text, [streamId], { prepare: true });
    if (Number(rows[0]?.stream_position ?? 0) >= streamPosition) return;
    if (performance.now() >= deadline) {
      throw new ServiceUnavailableError(
        `The change was saved but is not visible yet (projection ${schema} is behind on ${streamId}); ` +
          'read it again shortly instead of repeating the write',
      );
    }
    await sleep(intervalMs);
  }
}
