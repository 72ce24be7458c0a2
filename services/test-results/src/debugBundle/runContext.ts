/** The run every scope of the debug bundle shows: its row, its status, its meta and its environment. */
import { keptInstant, keptInstantOrNull, type RunHost, type RunSettings } from '@verdict/contracts';
import { NotFoundError } from '@verdict/platform';
import type { BundleSources, Timestamp } from './sources';
import type { BundleEnvironment, BundleMeta, BundleRunStatus, BundleView } from './types';

export interface RunRow {
  id: string;
  title: string | null;
  status: 'running' | 'finished';
  reported_status: string | null;
  outcome: 'passed' | 'failed' | null;
  branch: string | null;
  environment: string | null;
  commit: { sha: string; message?: string; author?: string } | null;
  ci: { provider?: string; buildId?: string; url?: string } | null;
  framework: { name: string; version?: string } | null;
  started_at: Timestamp;
  finished_at: Timestamp | null;
  duration_ms: string | number | null;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  host: RunHost | null;
  settings: RunSettings | null;
}

/** The run, read for its project only: a run of another project is as unknown as a missing one. */
export async function loadRun(sources: BundleSources, projectId: string, runId: string): Promise<RunRow> {
  const { rows } = await sources.db.query<RunRow>(
    `SELECT id, title, status, reported_status, outcome, branch, environment, commit, ci, framework,
            started_at, finished_at, duration_ms, total, passed, failed, flaky, skipped, host, settings
     FROM ${sources.schemas.runList}.runs WHERE id = $1 AND project_id = $2`,
    [runId, projectId],
  );
  const run = rows[0];
  if (!run) throw new NotFoundError(`Test run ${runId} not found`, 'TEST_RUN_NOT_FOUND');
  return run;
}

export function runStatusOf(run: RunRow): BundleRunStatus {
  if (run.status === 'running') return 'running';
  if (run.reported_status === 'interrupted') return 'interrupted';
  return run.outcome === 'failed' || run.failed > 0 ? 'failed' : 'passed';
}

export function metaOf(projectId: string, run: RunRow, view: BundleView, now: Date): BundleMeta {
  return {
    projectId,
    runId: run.id,
    runTitle: run.title,
    startedAt: keptInstant(run.started_at),
    finishedAt: keptInstantOrNull(run.finished_at),
    durationMs: run.duration_ms === null ? null : Number(run.duration_ms),
    stats: {
      total: run.total,
      passed: run.passed,
      failed: run.failed,
      flaky: run.flaky,
      skipped: run.skipped,
    },
    view,
    generatedAt: now.toISOString(),
  };
}

export function environmentOf(run: RunRow): BundleEnvironment {
  return {
    branch: run.branch,
    environment: run.environment,
    commit: run.commit && {
      sha: run.commit.sha,
      message: run.commit.message ?? null,
      author: run.commit.author ?? null,
    },
    ci: run.ci && {
      provider: run.ci.provider ?? null,
      buildId: run.ci.buildId ?? null,
      url: run.ci.url ?? null,
    },
    framework: run.framework && { name: run.framework.name, version: run.framework.version ?? null },
    host: run.host,
    settings: run.settings,
  };
}
