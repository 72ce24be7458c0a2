/**
 * The Playwright reporter. It starts the run in onBegin (the shards of one CI build join one run by its
 * ciRunId), hands every attempt to the background sender as it ends, and in onEnd waits a bounded time
 * for the sender, sends coverage when asked, finishes its shard and prints the run's page. It never
 * throws into Playwright and never makes a test wait: a Verdict that is down, slow or refusing is told
 * once and what could not be sent goes to a spool that `verdict replay` sends later.
 */
import { randomUUID } from 'node:crypto';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestResult,
} from '@playwright/test/reporter';
import { createVerdictClient } from '@verdict/client';
import {
  createRunSender,
  forgivenLine,
  judgeFailures,
  loadQuarantines,
  QUARANTINE_FILE,
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
  type QuarantineList,
  type RunFailureSeen,
  type RunSender,
} from '@verdict/client/reporting';
import { resultItemOf, runnerSettingsOf } from './results';

export interface VerdictPlaywrightOptions extends ReporterOptions {
  /**
   * A coverage report to send when the tests end: Istanbul's `coverage-summary.json`, `lcov.info` or
   * Cobertura XML; `VERDICT_COVERAGE_FILE`.
   */
  coverage?: string;
  /** Where the reporter's lines go (default: stderr, each prefixed with `[verdict]`). */
  log?: (line: string) => void;
  /**
   * `enforce`: a run whose every failure is quarantined for the error it failed with passes (Playwright's
   * exit code 0), with one line naming the forgiven tests; `off` (default). `VERDICT_QUARANTINE`.
   */
  quarantine?: 'off' | 'enforce';
  /** The copy of the quarantine list kept for runs that cannot reach Verdict; `VERDICT_QUARANTINE_FILE`. */
  quarantineFile?: string;
}

const RUN_STATUS = {
  passed: 'passed',
  failed: 'failed',
  timedout: 'timedOut',
  interrupted: 'interrupted',
} as const;

const defaultLog = (line: string) => process.stderr.write(`[verdict] ${line}\n`);

export class VerdictReporter implements Reporter {
  private readonly options: VerdictPlaywrightOptions;
  private readonly log: (line: string) => void;
  private settings: ReporterSettings | undefined;
  private sender: RunSender | undefined;
  private rootDir = process.cwd();
  private shard: { current: number; total: number } | undefined;
  /** How many tests each worker (by workerIndex) has begun: an attempt's ordinal is its count at begin. */
  private readonly begun = new Map<number, number>();
  private readonly ordinals = new WeakMap<TestResult, number>();
  /** With quarantine enforced: the list as the run began, and each test's last failed attempt. */
  private quarantines: Promise<QuarantineList | null> | undefined;
  private readonly lastFailures = new Map<TestCase, RunFailureSeen>();
  private readonly ended = new Set<TestCase>();

  constructor(options: VerdictPlaywrightOptions = {}) {
    this.options = options;
    this.log = options.log ?? defaultLog;
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, _suite: Suite): void {
    this.guard('starting the run', () => {
      const resolved = resolveSettings(this.options, process.env);
      if (resolved.status === 'disabled') return;
      if (resolved.status === 'invalid') {
        this.log(resolved.problem);
        return;
      }
      const settings = resolved.settings;
      this.settings = settings;
      this.rootDir = config.rootDir;
      this.shard = config.shard ?? undefined;
      const git = gitInfo(config.rootDir);
      if (!settings.ciRunId && this.shard && this.shard.total > 1) {
        this.log(
          `shard ${this.shard.current}/${this.shard.total} outside a known CI: it makes a run of its own ` +
            '(give every shard the same VERDICT_CI_RUN_ID to join them)',
        );
      }
      const client = createVerdictClient({
        baseUrl: settings.baseUrl,
        token: settings.token,
        project: settings.project,
        retry: REPORTER_RETRY,
        timeoutMs: REPORTER_TIMEOUT_MS,
        userAgent: '@verdict/playwright-reporter',
      });
      const start = startBody(settings, {
        // Outside CI an id of its own: a replay of this process's spool joins the same run.
        ciRunId: settings.ciRunId ?? `playwright-${randomUUID()}`,
        framework: { name: 'playwright', version: config.version },
        ...(this.shard && this.shard.total > 1 ? { shard: this.shard } : {}),
        startedAt: new Date().toISOString(),
        git,
      });
      if ((this.options.quarantine ?? process.env.VERDICT_QUARANTINE) === 'enforce') {
        this.quarantines = loadQuarantines({
          client,
          baseUrl: settings.baseUrl,
          project: settings.project,
          file: this.options.quarantineFile ?? process.env.VERDICT_QUARANTINE_FILE ?? QUARANTINE_FILE,
          now: new Date(),
          log: this.log,
        }).catch(() => null);
      }
      this.sender = createRunSender({
        client,
        baseUrl: settings.baseUrl,
        project: settings.project,
        start: {
          ...start,
          ciRunId: start.ciRunId ?? '',
          host: hostInfo(),
          settings: runnerSettingsOf(config),
        },
        batchSize: settings.batchSize,
        flushIntervalMs: settings.flushIntervalMs,
        spoolDir: settings.spoolDir,
        ...(this.shard ? { spoolLabel: `shard${this.shard.current}` } : {}),
        log: this.log,
      });
    });
  }

  onTestBegin(_test: TestCase, result: TestResult): void {
    if (!this.sender || result.workerIndex < 0) return;
    const ordinal = this.begun.get(result.workerIndex) ?? 0;
    this.begun.set(result.workerIndex, ordinal + 1);
    this.ordinals.set(result, ordinal);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const sender = this.sender;
    if (!sender) return;
    this.guard('reading a result', () => {
      const { item, files } = resultItemOf(test, result, this.rootDir, this.ordinals.get(result));
      sender.add(item, files);
      if (this.quarantines) {
        this.ended.add(test);
        const { file, titlePath, project, error } = item;
        if (error) this.lastFailures.set(test, { file, titlePath, project: project ?? null, error });
      }
    });
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    const sender = this.sender;
    const settings = this.settings;
    if (!sender || !settings) return undefined;
    await this.report(result, sender, settings);
    return this.enforceQuarantine(result);
  }

  /**
   * With quarantine enforced, a failed run whose every unexpected test failed with an error its quarantine
   * forgives passes. Anything else (a test failing otherwise, an unexpected pass, a failure outside the
   * tests, no list from Verdict nor a copy) leaves Playwright's own status.
   */
  private async enforceQuarantine(
    result: FullResult,
  ): Promise<{ status?: FullResult['status'] } | undefined> {
    if (!this.quarantines || result.status !== 'failed') return undefined;
    try {
      const list = await this.quarantines;
      if (!list) {
        this.log('quarantine not applied: Verdict could not be reached and no copy of its list was kept');
        return undefined;
      }
      const failing = this.failingTests();
      if (failing === null || failing.length === 0) return undefined;
      const { forgiven, unforgiven } = judgeFailures(failing, list.quarantines, new Date());
      if (unforgiven.length > 0) {
        if (forgiven.length > 0) {
          this.log(
            `${unforgiven.length} failure(s) not forgiven by a quarantine (another test, or a new error): the run fails`,
          );
        }
        return undefined;
      }
      this.log(forgivenLine(forgiven, list));
      return { status: 'passed' };
    } catch (error) {
      this.log(`quarantine not applied: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** The last failed attempt of each test that ended unexpectedly; null when one of them has none. */
  private failingTests(): RunFailureSeen[] | null {
    const failing: RunFailureSeen[] = [];
    for (const test of this.ended) {
      if (test.outcome() !== 'unexpected') continue;
      const failure = this.lastFailures.get(test);
      // An unexpected pass (test.fail()) or a failure without an error: nothing a quarantine forgives.
      if (!failure) return null;
      failing.push(failure);
    }
    return failing;
  }

  private async report(result: FullResult, sender: RunSender, settings: ReporterSettings): Promise<void> {
    try {
      const coverageFile = this.options.coverage ?? process.env.VERDICT_COVERAGE_FILE;
      if (coverageFile) {
        try {
          sender.addCoverage(await readCoverage(coverageFile, { root: this.rootDir }));
        } catch (error) {
          this.log(`coverage not sent: ${(error as Error).message}`);
        }
      }
      const outcome = await sender.finish(
        {
          status: RUN_STATUS[result.status],
          finishedAt: new Date().toISOString(),
          ...(this.shard && this.shard.total > 1 ? { shard: this.shard } : {}),
        },
        settings.finishTimeoutMs,
      );
      const sent = `${outcome.accepted} result${outcome.accepted === 1 ? '' : 's'} sent`;
      const files =
        outcome.uploaded > 0 ? `, ${outcome.uploaded} file${outcome.uploaded === 1 ? '' : 's'}` : '';
      if (outcome.runUrl) this.log(`${outcome.runUrl} (${sent}${files})`);
      if (outcome.spoolFile && outcome.spooled > 0) {
        this.log(
          `${outcome.spooled} result(s) kept in ${outcome.spoolFile}: npx @verdict/cli replay ${outcome.spoolFile}`,
        );
      }
      await summarizeRun({
        githubSummary: this.options.githubSummary,
        settings,
        outcome,
        ...(this.shard && this.shard.total > 1 ? { shard: this.shard.current } : {}),
        userAgent: '@verdict/playwright-reporter',
        log: this.log,
      });
    } catch (error) {
      this.log(`could not finish reporting: ${(error as Error).message}`);
    }
  }

  /** Nothing the reporter does may fail the test run: a surprise is told and the tests go on. */
  private guard(what: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.log(`${what} failed: ${(error as Error).message}`);
    }
  }
}
