/**
 * The run the CLI writes into: started (or joined) by its ciRunId as shard 1 of 1, filled by imports that
 * leave it running (`finish=false`), coverage, then finished. The ciRunId is the one given, else the CI
 * build's, else one derived from the reports themselves, so running the same import again finds the same
 * run instead of making another.
 */
import type { CoverageBody, FinishRunBody, RunSummary } from '@verdict/client';
import {
  gitInfo,
  resolveSettings,
  runPageUrl,
  startBody,
  type ReporterSettings,
} from '@verdict/client/reporting';
import { readFile, stat } from 'node:fs/promises';
import { verdictFailure, type Connection } from './connection';
import { usageError } from './exitCodes';
import { bytes, type Output } from './output';
import { attachmentsOf, type ReportKind } from './reports';

/** The options every command that writes a run takes. */
export interface RunFlags {
  ciRunId?: string;
  title?: string;
  branch?: string;
  environment?: string;
  commitSha?: string;
  buildUrl?: string;
  tags?: string[];
}

export const SHARD = { current: 1, total: 1 } as const;

export interface RunTarget {
  run: RunSummary;
  ciRunId: string;
  /** The web app's page of the run. */
  url: string;
}

/** The environment as the run's settings read it: VERDICT_DISABLED is for reporters, not for commands. */
const forSettings = (env: NodeJS.ProcessEnv) => ({ ...env, VERDICT_DISABLED: undefined });

function settingsOf(connection: Connection, flags: RunFlags, env: NodeJS.ProcessEnv): ReporterSettings {
  const resolved = resolveSettings(
    { ...flags, url: connection.baseUrl, token: 'given', project: connection.project },
    forSettings(env),
  );
  if (resolved.status !== 'ready') throw usageError('the run’s settings are incomplete');
  return resolved.settings;
}

/** The ciRunId given or the CI's; `fallback` (from the reports, or fresh) otherwise. */
export function ciRunIdOf(flags: RunFlags, env: NodeJS.ProcessEnv, fallback: string): string {
  const resolved = resolveSettings({ ...flags, url: 'http://x', token: 'x', project: 'x' }, forSettings(env));
  return (resolved.status === 'ready' ? resolved.settings.ciRunId : undefined) ?? fallback;
}

/** Starts the run (or joins the one of this ciRunId). */
export async function startTarget(
  connection: Connection,
  flags: RunFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
  run: { ciRunId: string; framework?: { name: string; version?: string }; startedAt?: string },
): Promise<RunTarget> {
  const settings = settingsOf(connection, flags, env);
  const body = startBody(settings, { ...run, shard: SHARD, git: gitInfo(cwd) });
  try {
    const { run: started } = await connection.client.startRun(body);
    return {
      run: started,
      ciRunId: run.ciRunId,
      url: runPageUrl(connection.baseUrl, connection.project, started.id),
    };
  } catch (error) {
    throw verdictFailure(error, connection.baseUrl);
  }
}

/** Uploads the files a Playwright report names by path, with the path as resultRef (the import links them). */
async function uploadAttachments(
  connection: Connection,
  target: RunTarget,
  report: { suites?: unknown[] },
  output: Output,
): Promise<{ uploaded: number; missing: number; bytes: number }> {
  const attachments = attachmentsOf(report as Parameters<typeof attachmentsOf>[0]);
  const done = { uploaded: 0, missing: 0, bytes: 0 };
  for (const attachment of attachments) {
    if (!(await stat(attachment.path).catch(() => undefined))?.isFile()) {
      done.missing += 1;
      continue;
    }
    try {
      const artifact = await connection.client.uploadArtifact(target.run.id, {
        path: attachment.path,
        name: attachment.name,
        contentType: attachment.contentType,
        resultRef: attachment.path,
      });
      done.uploaded += 1;
      done.bytes += artifact.size;
      output.progress(`uploading attachments: ${done.uploaded}/${attachments.length} (${bytes(done.bytes)})`);
    } catch (error) {
      throw verdictFailure(error, connection.baseUrl);
    }
  }
  if (done.uploaded > 0) {
    output.progress(`uploaded ${done.uploaded} attachment(s), ${bytes(done.bytes)}`, true);
  }
  if (done.missing > 0)
    output.info(`${done.missing} attachment(s) named by the report are not on this disk: left out`);
  return done;
}

/** Imports one report into the running target (it stays running). */
export async function importInto(
  connection: Connection,
  target: RunTarget,
  file: string,
  kind: ReportKind,
  output: Output,
): Promise<void> {
  const query = { ciRunId: target.ciRunId, finish: 'false' as const };
  try {
    if (kind === 'junit') {
      await connection.client.importJunit({ path: file }, query);
      return;
    }
    const report = JSON.parse(await readFile(file, 'utf8')) as { suites?: unknown[] };
    await uploadAttachments(connection, target, report, output);
    await connection.client.importPlaywright({ path: file }, query);
  } catch (error) {
    if (error instanceof SyntaxError) throw usageError(`${file} is not JSON: ${error.message}`);
    throw verdictFailure(error, connection.baseUrl);
  }
}

export async function addCoverageTo(connection: Connection, target: RunTarget, coverage: CoverageBody) {
  try {
    return await connection.client.addCoverage(target.run.id, coverage);
  } catch (error) {
    throw verdictFailure(error, connection.baseUrl);
  }
}

export async function finishTarget(
  connection: Connection,
  target: RunTarget,
  body: Omit<FinishRunBody, 'shard'> = {},
): Promise<RunSummary> {
  try {
    return await connection.client.finishRun(target.run.id, { ...body, shard: SHARD });
  } catch (error) {
    throw verdictFailure(error, connection.baseUrl);
  }
}

/** One line on the run once it is in: its number, its page, and its counts when the read model has them. */
export async function describeRun(connection: Connection, target: RunTarget): Promise<string> {
  const detail = await connection.client.getRun(target.run.id).catch(() => undefined);
  const stats = detail?.stats;
  const counts =
    stats && stats.total > 0
      ? `: ${stats.total} tests, ${stats.passed} passed, ${stats.failed} failed, ${stats.flaky} flaky, ${stats.skipped} skipped`
      : '';
  return `run #${target.run.counter}${counts}`;
}
