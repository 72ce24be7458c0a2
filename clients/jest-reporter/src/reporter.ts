/**
 * The Jest reporter: starts the run when Jest starts (shards of one CI build join one run by its
 * ciRunId), hands each test file's results to the background sender as the file finishes, and when Jest
 * is done waits a bounded time for the sender, finishes its shard and prints the run's page. It never
 * throws into Jest: a Verdict that is down, slow or refusing is told once, and what could not be sent goes
 * to a spool that `verdict replay` sends later.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createVerdictClient, type StartRunBody } from '@verdict/client';
import {
  createRunSender,
  gitInfo,
  hostInfo,
  readCoverage,
  REPORTER_RETRY,
  REPORTER_TIMEOUT_MS,
  resolveSettings,
  startBody,
  summarizeRun,
  type ReporterOptions,
  type ReporterSettings,
  type RunSender,
} from '@verdict/client/reporting';
import { resultItemsOf, type JestFileResult } from './results';

export interface VerdictJestOptions extends ReporterOptions {
  /** A coverage report to send at the end (coverage-summary.json, lcov.info, Cobertura XML); `VERDICT_COVERAGE_FILE`. */
  coverage?: string;
  /** Where the reporter's lines go (default: stderr, each prefixed with `[verdict]`). */
  log?: (line: string) => void;
}

/** The parts of Jest's global config the reporter reads. */
interface JestGlobalConfig {
  rootDir: string;
  shard?: { shardIndex: number; shardCount: number } | null;
  maxWorkers?: number;
  /** Jest 29+: the seed of this run (`--seed`, else drawn at random), which `--randomize` orders by. */
  seed?: number;
}

/**
 * What Jest tells a reporter of how it runs tests: its worker count, shard and seed. Jest says nothing of
 * which worker ran a test, so results carry no worker, and it has no fullyParallel.
 */
function runnerSettingsOf(globalConfig: JestGlobalConfig): NonNullable<StartRunBody['settings']> {
  const { maxWorkers, seed, shard } = globalConfig;
  return {
    ...(typeof maxWorkers === 'number' && maxWorkers > 0 ? { workers: maxWorkers } : {}),
    ...(shard ? { shard: { current: shard.shardIndex, total: shard.shardCount } } : {}),
    ...(typeof seed === 'number' ? { seed: String(seed) } : {}),
  };
}

interface JestAggregate {
  numFailedTests?: number;
  numRuntimeErrorTestSuites?: number;
  success?: boolean;
  wasInterrupted?: boolean;
}

const defaultLog = (line: string) => process.stderr.write(`[verdict] ${line}\n`);

function jestVersion(rootDir: string): string | undefined {
  try {
    // Jest is the host: its version is whatever the user's project resolves.
    const resolve = createRequire(path.join(rootDir, 'package.json'));
    return (resolve('jest/package.json') as { version?: string }).version;
  } catch {
    return undefined;
  }
}

export class VerdictJestReporter {
  private readonly options: VerdictJestOptions;
  private readonly log: (line: string) => void;
  private readonly rootDir: string;
  private readonly shard: { current: number; total: number } | undefined;
  private readonly runnerSettings: NonNullable<StartRunBody['settings']>;
  private settings: ReporterSettings | undefined;
  private sender: RunSender | undefined;

  constructor(globalConfig: JestGlobalConfig, options: VerdictJestOptions = {}) {
    this.options = options ?? {};
    this.log = this.options.log ?? defaultLog;
    this.rootDir = globalConfig.rootDir;
    const shard = globalConfig.shard;
    this.shard =
      shard && shard.shardCount > 1 ? { current: shard.shardIndex, total: shard.shardCount } : undefined;
    this.runnerSettings = runnerSettingsOf(globalConfig);
  }

  onRunStart(): void {
    try {
      const resolved = resolveSettings(this.options, process.env);
      if (resolved.status === 'disabled') return;
      if (resolved.status === 'invalid') {
        this.log(resolved.problem);
        return;
      }
      const settings = resolved.settings;
      this.settings = settings;
      if (!settings.ciRunId && this.shard) {
        this.log(
          `shard ${this.shard.current}/${this.shard.total} outside a known CI: it makes a run of its own ` +
            '(give every shard the same VERDICT_CI_RUN_ID to join them)',
        );
      }
      const version = jestVersion(this.rootDir);
      const start = startBody(settings, {
        ciRunId: settings.ciRunId ?? `jest-${randomUUID()}`,
        framework: { name: 'jest', ...(version ? { version } : {}) },
        ...(this.shard ? { shard: this.shard } : {}),
        startedAt: new Date().toISOString(),
        git: gitInfo(this.rootDir),
      });
      this.sender = createRunSender({
        client: createVerdictClient({
          baseUrl: settings.baseUrl,
          token: settings.token,
          project: settings.project,
          retry: REPORTER_RETRY,
          timeoutMs: REPORTER_TIMEOUT_MS,
          userAgent: '@verdict/jest-reporter',
        }),
        baseUrl: settings.baseUrl,
        project: settings.project,
        start: {
          ...start,
          ciRunId: start.ciRunId ?? '',
          host: hostInfo(),
          settings: this.runnerSettings,
        },
        batchSize: settings.batchSize,
        flushIntervalMs: settings.flushIntervalMs,
        spoolDir: settings.spoolDir,
        ...(this.shard ? { spoolLabel: `shard${this.shard.current}` } : {}),
        log: this.log,
      });
    } catch (error) {
      this.log(`starting the run failed: ${(error as Error).message}`);
    }
  }

  onTestFileResult(_test: unknown, testResult: JestFileResult): void {
    const sender = this.sender;
    if (!sender) return;
    try {
      for (const item of resultItemsOf(testResult, this.rootDir)) sender.add(item);
    } catch (error) {
      this.log(`reading ${testResult.testFilePath} failed: ${(error as Error).message}`);
    }
  }

  /** Jest before 26.4 calls this instead of onTestFileResult. */
  onTestResult(test: unknown, testResult: JestFileResult): void {
    this.onTestFileResult(test, testResult);
  }

  async onRunComplete(_contexts: unknown, results: JestAggregate): Promise<void> {
    const sender = this.sender;
    const settings = this.settings;
    if (!sender || !settings) return;
    try {
      const coverageFile = this.options.coverage ?? process.env.VERDICT_COVERAGE_FILE;
      if (coverageFile) {
        try {
          sender.addCoverage(await readCoverage(coverageFile, { root: this.rootDir }));
        } catch (error) {
          this.log(`coverage not sent: ${(error as Error).message}`);
        }
      }
      const status = results.wasInterrupted
        ? 'interrupted'
        : (results.numFailedTests ?? 0) > 0 || (results.numRuntimeErrorTestSuites ?? 0) > 0
          ? 'failed'
          : 'passed';
      const outcome = await sender.finish(
        { status, finishedAt: new Date().toISOString(), ...(this.shard ? { shard: this.shard } : {}) },
        settings.finishTimeoutMs,
      );
      if (outcome.runUrl)
        this.log(`${outcome.runUrl} (${outcome.accepted} result${outcome.accepted === 1 ? '' : 's'} sent)`);
      if (outcome.spoolFile && outcome.spooled > 0) {
        this.log(
          `${outcome.spooled} result(s) kept in ${outcome.spoolFile}: npx @verdict/cli replay ${outcome.spoolFile}`,
        );
      }
      await summarizeRun({
        githubSummary: this.options.githubSummary,
        settings,
        outcome,
        ...(this.shard ? { shard: this.shard.current } : {}),
        userAgent: '@verdict/jest-reporter',
        log: this.log,
      });
    } catch (error) {
      this.log(`could not finish reporting: ${(error as Error).message}`);
    }
  }

  /** Reporting never fails the test run. */
  getLastError(): Error | undefined {
    return undefined;
  }
}
