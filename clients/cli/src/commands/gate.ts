/**
 * `verdict gate --run <id>`: waits (bounded) for the run's quality gate, judged when its last shard
 * finishes, prints each rule against its threshold and exits by it: 0 passed (or no rules), 1 failed, 3
 * Verdict unreachable or the gate still pending at the deadline. `--on-unreachable pass|fail` turns that
 * last case into 0 or 1, for a pipeline that must not wait on Verdict (fail-safe) or must not pass without
 * it (fail-closed).
 */
import { VerdictApiError, VerdictNetworkError, type RunGate } from '@verdict/client';
import { failureReason } from '@verdict/client/reporting';
import { connect, verdictFailure, type ConnectionFlags, type Connection } from '../connection';
import { CliError, EXIT, usageError } from '../exitCodes';
import type { Context } from './import';

export type OnUnreachable = 'pass' | 'fail';

export interface GateFlags extends ConnectionFlags {
  run?: string;
  /** Seconds to wait for the run to finish (default 300). */
  timeout?: string;
  onUnreachable?: string;
}

/** Between two reads of a pending gate. */
const POLL_MS = 2_000;
const DEFAULT_TIMEOUT_S = 300;

export function onUnreachableOf(value: string | undefined): OnUnreachable | undefined {
  if (value === undefined || value === 'pass' || value === 'fail') return value;
  throw usageError(`--on-unreachable: pass or fail, not ${value}`);
}

const shown = (value: number | boolean | string[], rule: string): string => {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (rule === 'minPassRate' || rule === 'maxFlakyRate') return `${(value * 100).toFixed(1)}%`;
  if (rule === 'maxDurationMs') return `${(value / 1_000).toFixed(1)} s`;
  return String(value);
};

/** The gate as lines for a CI log: the status, then each rule with what was observed against its threshold. */
export function gateText(gate: RunGate): string {
  if (gate.status === 'none') return 'Quality gate: no rules set for this project: nothing to judge.\n';
  if (gate.status === 'pending') return 'Quality gate: pending (the run has not finished).\n';
  const lines = [`Quality gate: ${gate.status.toUpperCase()}`];
  for (const rule of gate.rules) {
    lines.push(
      `  ${rule.passed ? '✓' : '✗'} ${rule.rule}: ${shown(rule.observed, rule.rule)} (threshold ${shown(rule.threshold, rule.rule)})`,
    );
    for (const failure of rule.failures) {
      const platform = failure.project ? ` [${failure.project}]` : '';
      const signature = failure.signatureId ? `, signature ${failure.signatureId}` : '';
      lines.push(`      ${failure.testCaseId}${platform}: ${failure.verdict}${signature}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Verdict could not answer (down, overloaded): unlike a refusal (401, 403, 404), the gate is unknown. */
export class GateUnreachable extends Error {}

/**
 * The run's gate once it is no longer pending; null when the deadline came first. Verdict down or failing
 * (network, 429, 5xx after the client's retries) throws GateUnreachable; a refusal, a CliError (exit 3).
 */
export async function awaitGate(
  connection: Connection,
  runId: string,
  timeoutMs: number,
): Promise<RunGate | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let gate: RunGate;
    try {
      gate = await connection.client.getRunGate(runId);
    } catch (error) {
      const down =
        error instanceof VerdictNetworkError ||
        (error instanceof VerdictApiError && (error.status >= 500 || error.status === 429));
      if (down) throw new GateUnreachable(failureReason(error, connection.baseUrl));
      throw verdictFailure(error, connection.baseUrl);
    }
    if (gate.status !== 'pending') return gate;
    if (Date.now() + POLL_MS > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The exit code of a gate: 0 passed or none, 1 failed. */
export const gateExit = (gate: RunGate): number => (gate.status === 'failed' ? EXIT.commandFailed : EXIT.ok);

export async function gateCommand(flags: GateFlags, context: Context): Promise<number> {
  if (!flags.run) throw usageError('verdict gate: name the run with --run <runId>');
  const onUnreachable = onUnreachableOf(flags.onUnreachable);
  const timeoutS = flags.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(flags.timeout);
  if (!Number.isInteger(timeoutS) || timeoutS < 0 || timeoutS > 86_400) {
    throw usageError('--timeout: whole seconds, 0 to 86400');
  }
  const connection = connect(flags, context.env);
  const unreachable = (reason: string): number => {
    if (onUnreachable === undefined) throw new CliError(reason, EXIT.verdict);
    context.output.info(`${reason}; --on-unreachable ${onUnreachable}`);
    return onUnreachable === 'pass' ? EXIT.ok : EXIT.commandFailed;
  };
  let gate: RunGate | null;
  try {
    gate = await awaitGate(connection, flags.run, timeoutS * 1_000);
  } catch (error) {
    if (!(error instanceof GateUnreachable)) throw error;
    return unreachable(error.message);
  }
  if (!gate) return unreachable(`the run's gate was still pending after ${timeoutS} s`);
  context.output.result(gateText(gate).trimEnd());
  return gateExit(gate);
}
