/**
 * `verdict coverage <file>`: Istanbul's coverage-summary.json, lcov.info or Cobertura XML, added to a run
 * that is still running: the one `--run` names, else the one of the ciRunId (given or the CI's), joined
 * as shard 1 of 1. `--finish` finishes it afterwards.
 */
import { readCoverage } from '@verdict/client/reporting';
import { connect, verdictFailure, type ConnectionFlags } from '../connection';
import { EXIT, usageError } from '../exitCodes';
import { ciRunIdOf, SHARD, startTarget, type RunFlags } from '../target';
import type { Context } from './import';

export interface CoverageFlags extends ConnectionFlags, RunFlags {
  run?: string;
  finish?: boolean;
}

const percent = (metric: { total: number; covered: number } | undefined) =>
  metric && metric.total > 0 ? `${((metric.covered / metric.total) * 100).toFixed(1)}%` : undefined;

export async function coverageCommand(
  file: string | undefined,
  flags: CoverageFlags,
  context: Context,
): Promise<number> {
  const { env, cwd, output } = context;
  if (!file)
    throw usageError(
      'verdict coverage: name the coverage file (coverage-summary.json, lcov.info or Cobertura XML)',
    );
  const coverage = await readCoverage(file, { root: cwd }).catch((error: Error) => {
    throw usageError(error.message);
  });
  const connection = connect(flags, env);
  let runId = flags.run;
  if (!runId) {
    const ciRunId = ciRunIdOf(flags, env, '');
    if (!ciRunId) {
      throw usageError(
        'verdict coverage: name the run (--run <id>, --ci-run-id, VERDICT_CI_RUN_ID, or run it in CI)',
      );
    }
    runId = (await startTarget(connection, flags, env, cwd, { ciRunId })).run.id;
  }
  try {
    await connection.client.addCoverage(runId, coverage);
    // A run of shard 1 of 1 (as the CLI starts them) needs its shard named; a run without shards ignores it.
    if (flags.finish) await connection.client.finishRun(runId, { shard: SHARD });
  } catch (error) {
    throw verdictFailure(error, connection.baseUrl);
  }
  const shown = (['lines', 'statements', 'functions', 'branches'] as const)
    .map((name) => (percent(coverage[name]) ? `${name} ${percent(coverage[name])}` : undefined))
    .filter(Boolean)
    .join(', ');
  output.info(`coverage added to run ${runId}: ${shown} (${coverage.files?.length ?? 0} files)`);
  return EXIT.ok;
}
