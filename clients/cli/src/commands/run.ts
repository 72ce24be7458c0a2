/**
 * `verdict run [--junit <glob>…] [--playwright <report.json>] [--coverage <file>] -- <command…>`: starts
 * a run, runs the command, imports the reports it wrote (those named, else every JUnit XML or Playwright
 * JSON report written under the working directory while it ran), adds coverage, and finishes the run as
 * passed or failed by the command's exit code. The CLI exits with the command's own code, or by the run's
 * quality gate when the project has rules (a failure forgiven by a quarantine does not fail the build; a
 * rule broken does). Verdict being unreachable or misconfigured is told, never turned into a failed build
 * (unless --on-unreachable fail).
 */
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { readCoverage } from '@verdict/client/reporting';
import { connect, type ConnectionFlags } from '../connection';
import { CliError, EXIT, usageError } from '../exitCodes';
import { expandFiles, reportKindOf, reportsWrittenSince, type ReportKind } from '../reports';
import {
  addCoverageTo,
  ciRunIdOf,
  describeRun,
  finishTarget,
  importInto,
  startTarget,
  type RunFlags,
  type RunTarget,
} from '../target';
import { awaitGate, gateExit, gateText, onUnreachableOf } from './gate';
import type { Context } from './import';

export interface RunCommandFlags extends ConnectionFlags, RunFlags {
  junit?: string[];
  playwright?: string[];
  coverage?: string;
  onUnreachable?: string;
}

/** How long `verdict run` waits for the gate of its run (the other shards may still be running). */
const GATE_WAIT_MS = 120_000;

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGKILL: 9,
  SIGTERM: 15,
};

/** Runs the command with this terminal, passing signals on; resolves with its exit code (128+n on a signal). */
function runChild(command: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const [file, ...args] = command;
    const child = spawn(file as string, args, { cwd, env, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of SIGNALS) process.on(signal, forward);
    const settle = (code: number) => {
      for (const signal of SIGNALS) process.off(signal, forward);
      resolve(code);
    };
    child.on('error', (error) => {
      process.stderr.write(`verdict: could not run ${file}: ${error.message}\n`);
      settle(127);
    });
    child.on('exit', (code, signal) => settle(code ?? 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 1) : 1)));
  });
}

async function namedReports(
  flags: RunCommandFlags,
  cwd: string,
): Promise<{ file: string; kind: ReportKind }[]> {
  const junit = flags.junit?.length ? await expandFiles(flags.junit, cwd) : [];
  const playwright = flags.playwright?.length ? await expandFiles(flags.playwright, cwd) : [];
  return [
    ...junit.map((file) => ({ file, kind: 'junit' as const })),
    ...playwright.map((file) => ({ file, kind: 'playwright' as const })),
  ];
}

export async function runCommand(
  command: readonly string[],
  flags: RunCommandFlags,
  context: Context,
): Promise<number> {
  const { env, cwd, output } = context;
  if (command.length === 0)
    throw usageError('verdict run: give the command after --, e.g. verdict run -- npx pytest');
  const onUnreachable = onUnreachableOf(flags.onUnreachable);
  const startedAt = Date.now();
  // Reporting is set up first, but nothing about Verdict may keep the command from running.
  let reporting: Promise<{ connection: ReturnType<typeof connect>; target: RunTarget } | undefined>;
  try {
    const connection = connect(flags, env);
    const ciRunId = ciRunIdOf(flags, env, `run-${randomUUID()}`);
    reporting = startTarget(connection, flags, env, cwd, {
      ciRunId,
      startedAt: new Date(startedAt).toISOString(),
    }).then(
      (target) => ({ connection, target }),
      (error: Error) => {
        output.info(`not reporting this run: ${error.message}`);
        return undefined;
      },
    );
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    output.info(`not reporting this run: ${error.message}`);
    reporting = Promise.resolve(undefined);
  }
  const code = await runChild(command, cwd, env);
  const ready = await reporting;
  const own = code === 0 ? EXIT.ok : code;
  const whenUnreachable = (reason: string) => {
    output.info(reason);
    if (onUnreachable === undefined) return own;
    output.info(`--on-unreachable ${onUnreachable}`);
    return onUnreachable === 'pass' ? EXIT.ok : EXIT.commandFailed;
  };
  if (!ready) return whenUnreachable('the run was not reported: the command’s own exit code stands');
  const { connection, target } = ready;
  try {
    const named = flags.junit?.length || flags.playwright?.length;
    const reports = named
      ? await namedReports(flags, cwd)
      : await Promise.all(
          (await reportsWrittenSince(cwd, startedAt)).map(async (file) => ({
            file,
            kind: (await reportKindOf(file)) as ReportKind,
          })),
        );
    if (reports.length === 0)
      output.info('the command wrote no JUnit XML or Playwright JSON report: the run has no results');
    for (const { file, kind } of reports) {
      output.progress(`importing ${path.relative(cwd, file) || file}`, true);
      await importInto(connection, target, file, kind, output);
    }
    if (flags.coverage)
      await addCoverageTo(connection, target, await readCoverage(flags.coverage, { root: cwd }));
    await finishTarget(connection, target, { status: code === 0 ? 'passed' : 'failed' });
    output.done();
    output.info(await describeRun(connection, target));
    output.result(target.url);
  } catch (error) {
    output.done();
    return whenUnreachable(`reporting failed: ${(error as Error).message}`);
  }
  try {
    // Without rules there is no gate to wait for (a sharded run's others may take long).
    const { rules } = await connection.client.getGateRules();
    if (Object.keys(rules).length === 0) return own;
    const gate = await awaitGate(connection, target.run.id, GATE_WAIT_MS);
    if (!gate)
      return whenUnreachable('the quality gate was still pending: the command’s own exit code stands');
    if (gate.status === 'none') return own;
    output.info(gateText(gate).trimEnd());
    return gateExit(gate);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return whenUnreachable(`the quality gate could not be read: ${error.message}`);
  }
}
