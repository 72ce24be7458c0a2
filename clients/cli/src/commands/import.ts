/**
 * `verdict import junit <files or globs…>` and `verdict import playwright <report.json…>`: every report
 * into one run (the ciRunId given, the CI's, or one derived from the reports), Playwright's attachments
 * uploaded from disk before the run finishes, coverage when asked, then the run finished.
 */
import { readCoverage } from '@verdict/client/reporting';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { connect, type ConnectionFlags } from '../connection';
import { EXIT, usageError } from '../exitCodes';
import type { Output } from '../output';
import { digestOf, expandFiles, reportKindOf, type ReportKind } from '../reports';
import {
  addCoverageTo,
  ciRunIdOf,
  describeRun,
  finishTarget,
  importInto,
  startTarget,
  type RunFlags,
} from '../target';

export interface Context {
  env: NodeJS.ProcessEnv;
  cwd: string;
  output: Output;
}

export interface ImportFlags extends ConnectionFlags, RunFlags {
  coverage?: string;
}

/** What a Playwright report says of its run: its framework version, start and end. */
async function playwrightRun(file: string) {
  const report = JSON.parse(await readFile(file, 'utf8')) as {
    config?: { version?: string };
    stats?: { startTime?: string; duration?: number };
  };
  const startedAt = report.stats?.startTime;
  const finishedAt =
    startedAt && typeof report.stats?.duration === 'number'
      ? new Date(Date.parse(startedAt) + Math.max(0, report.stats.duration)).toISOString()
      : undefined;
  return {
    framework: { name: 'playwright', ...(report.config?.version ? { version: report.config.version } : {}) },
    ...(startedAt ? { startedAt } : {}),
    finishedAt,
  };
}

export async function importCommand(
  kind: ReportKind,
  patterns: readonly string[],
  flags: ImportFlags,
  context: Context,
): Promise<number> {
  const { output, env, cwd } = context;
  if (patterns.length === 0) throw usageError(`verdict import ${kind}: name at least one report file`);
  const files = await expandFiles(patterns, cwd);
  for (const file of files) {
    const found = await reportKindOf(file).catch(() => undefined);
    if (found !== kind) {
      throw usageError(
        `${path.relative(cwd, file) || file} is not ${kind === 'junit' ? 'JUnit XML' : "Playwright's JSON report"}`,
      );
    }
  }
  const coverage = flags.coverage
    ? await readCoverage(flags.coverage, { root: cwd }).catch((error: Error) => {
        throw usageError(error.message);
      })
    : undefined;
  const connection = connect(flags, env);
  const ciRunId = ciRunIdOf(flags, env, `import-${await digestOf(files)}`);
  const single =
    kind === 'playwright' && files.length === 1 ? await playwrightRun(files[0] as string) : undefined;
  const target = await startTarget(connection, flags, env, cwd, {
    ciRunId,
    ...(single ? { framework: single.framework } : {}),
    ...(single?.startedAt ? { startedAt: single.startedAt } : {}),
  });
  output.info(
    `importing ${files.length} ${kind === 'junit' ? 'JUnit' : 'Playwright'} report(s) into run #${target.run.counter}`,
  );
  for (const [index, file] of files.entries()) {
    output.progress(`[${index + 1}/${files.length}] ${path.relative(cwd, file) || file}`, true);
    await importInto(connection, target, file, kind, output);
  }
  if (coverage) await addCoverageTo(connection, target, coverage);
  await finishTarget(connection, target, single?.finishedAt ? { finishedAt: single.finishedAt } : {});
  output.done();
  output.info(await describeRun(connection, target));
  output.result(target.url);
  return EXIT.ok;
}
