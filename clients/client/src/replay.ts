/**
 * Which requests may be sent again when an attempt's outcome is unknown (a 5xx, a reset connection, a
 * timeout: the server may have acted before the answer was lost). Every request may be retried after a
 * 429 or a refused connection: the rate limits refuse before any route runs, and a connection that was
 * never made carried nothing. Beyond that, only writes that Verdict makes idempotent are replayed:
 *
 * - reads (GET, HEAD) and PUT/DELETE: idempotent by HTTP's rules (a replayed DELETE may answer 404);
 * - start a run with a `ciRunId`: the ciRunId names one run, a replay joins it (200, same run);
 * - add results: a result is keyed by (file, titlePath, project, attempt) in its run, a replay counts
 *   as duplicates;
 * - upload an artifact: its id is derived from its bytes, name, content type and resultRef, a replay
 *   answers the same artifact;
 * - add coverage: the report's content names it, a replay records nothing new;
 * - finish a run (or a shard): finishing again changes nothing and answers the run;
 * - imports (Playwright, JUnit): keyed by the report's digest (or the ciRunId given), a replay answers
 *   the first import's run;
 * - generate a PDF report: records nothing.
 *
 * Not replayed after an unknown outcome: a start without `ciRunId` (each makes a new run), the manual
 * testing writes (cases, suites, runs, releases, sessions: each POST creates one, a PATCH may append
 * comments and history), webhook creation and updates, and the admin API's creations.
 */
import { isRetriableStatus } from './retry';

export type Replay = 'safe' | 'refusedOnly';

/** A classification that may depend on the JSON body (a start is safe with a ciRunId only). */
export type ReplayRule = Replay | 'safeWithCiRunId';

const SAFE_POSTS: readonly RegExp[] = [
  /^\/[^/]+\/test-runs\/[^/]+\/(results|artifacts|coverage|finish)$/,
  /^\/[^/]+\/imports\/(playwright|junit)$/,
  /^\/[^/]+\/reports$/,
];
const START_RUN = /^\/[^/]+\/test-runs$/;

/** The rule of a request, by its method and its path relative to the API base (`/{projectId}/…`). */
export function replayRule(method: string, apiPath: string): ReplayRule {
  const verb = method.toUpperCase();
  if (['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].includes(verb)) return 'safe';
  const path = apiPath.replace(/\/+$/, '');
  if (verb === 'POST' && SAFE_POSTS.some((pattern) => pattern.test(path))) return 'safe';
  if (verb === 'POST' && START_RUN.test(path)) return 'safeWithCiRunId';
  return 'refusedOnly';
}

/** Resolves `safeWithCiRunId` against the request's JSON body. */
export function replayOf(rule: ReplayRule, body: unknown): Replay {
  if (rule !== 'safeWithCiRunId') return rule;
  const ciRunId = (body as { ciRunId?: unknown } | null | undefined)?.ciRunId;
  return typeof ciRunId === 'string' && ciRunId.trim() !== '' ? 'safe' : 'refusedOnly';
}

/** Failures that prove the request never left: no connection was made, so nothing was sent. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Whether a failure to get an answer may be retried for a request of this replay class. */
export function mayRetryFailure(replay: Replay, systemCode: string | undefined): boolean {
  return replay === 'safe' || (systemCode !== undefined && NEVER_SENT.has(systemCode));
}

/** Whether an answer with this status may be retried for a request of this replay class. */
export function mayRetryStatus(replay: Replay, status: number): boolean {
  return isRetriableStatus(status) && (status === 429 || replay === 'safe');
}
