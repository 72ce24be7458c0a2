/**
 * A run's quality gate (issue 32): judged once, when the run (its last shard) finishes, from the project's
 * rules then and the run as the read models hold it; recorded on run.finished and read back from the run
 * list. A run finished before the rules changed keeps its result.
 */
import type { RunFailures, RunGate, RunGateRecord } from '@verdict/contracts';
import { NotFoundError } from '@verdict/platform';
import { platformOrNull, type TestResultsReadStore, type Timestamp } from '../readStore';
import { evaluateGate } from './evaluate';
import { gateRulesOf, hasRules } from './gateRules';

/**
 * The gate of a finishing run; null when the project has no rules (or the run list does not know it).
 *
 * @example const gate = await judgeRun(store, projectId, runId, failures, finishedAt);
 */
export async function judgeRun(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  runId: string,
  failures: RunFailures | null,
  finishedAt: string,
): Promise<RunGateRecord | null> {
  const { rules } = await gateRulesOf(db, schemas.gates, projectId);
  if (!hasRules(rules)) return null;
  const { rows } = await db.query<{
    total: number;
    passed: number;
    failed: number;
    flaky: number;
    skipped: number;
    started_at: Timestamp;
    platforms: string[];
  }>(
    `SELECT r.total, r.passed, r.failed, r.flaky, r.skipped, r.started_at,
       ARRAY(SELECT DISTINCT t.project FROM ${schemas.runList}.run_tests t
             WHERE t.run_id = r.id AND t.outcome <> 'skipped' ORDER BY 1) AS platforms
     FROM ${schemas.runList}.runs r WHERE r.id = $1 AND r.project_id = $2`,
    [runId, projectId],
  );
  const [run] = rows;
  if (!run) return null;
  const result = evaluateGate(rules, {
    stats: {
      total: run.total,
      passed: run.passed,
      failed: run.failed,
      flaky: run.flaky,
      skipped: run.skipped,
    },
    failures: (failures?.items ?? []).map(({ testCaseId, project, verdict, signature }) => ({
      testCaseId,
      project,
      verdict,
      signatureId: signature?.id ?? null,
    })),
    platforms: run.platforms.flatMap((platform) => platformOrNull(platform) ?? []),
    durationMs: Math.max(0, Date.parse(finishedAt) - new Date(run.started_at).getTime()),
  });
  return { ...result, evaluatedAt: finishedAt };
}

/**
 * The gate of a run as GET …/test-runs/{runId}/gate shows it: pending until it finishes.
 *
 * @example const gate = await runGate(store, projectId, runId);
 */
export async function runGate(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  runId: string,
): Promise<RunGate> {
  const { rows } = await db.query<{ status: string; gate: RunGateRecord | null }>(
    `SELECT status, gate FROM ${schemas.runList}.runs WHERE id = $1 AND project_id = $2`,
    [runId, projectId],
  );
  const [run] = rows;
  if (!run) throw new NotFoundError('Test run not found', 'TEST_RUN_NOT_FOUND');
  if (run.status !== 'finished') return { runId, status: 'pending', evaluatedAt: null, rules: [] };
  if (!run.gate) return { runId, status: 'none', evaluatedAt: null, rules: [] };
  return { runId, status: run.gate.status, evaluatedAt: run.gate.evaluatedAt, rules: run.gate.rules };
}
