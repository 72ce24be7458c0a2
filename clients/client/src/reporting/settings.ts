/**
 * A reporter's settings: its options, else the environment (`VERDICT_URL`, `VERDICT_TOKEN`,
 * `VERDICT_PROJECT`, …), else what the CI service says, else Git. A missing connection setting is told in
 * one line that names the option and the variable, never thrown into the test runner.
 */
import { createVerdictClient, type StartRunBody } from '@verdict/client';
import { detectCi, type CiBuild, type Env } from './ci';

/** The options every Verdict reporter takes (each may be given by an environment variable instead). */
export interface ReporterOptions {
  /** The server (`http://localhost:8080`); `VERDICT_URL`. */
  url?: string;
  /** A personal or project token; `VERDICT_TOKEN`. */
  token?: string;
  /** The project id; `VERDICT_PROJECT`. */
  project?: string;
  /** Names the run that the shards of one build join; `VERDICT_CI_RUN_ID`, else the CI's build. */
  ciRunId?: string;
  /** The run's title; `VERDICT_RUN_TITLE`. */
  title?: string;
  /** `VERDICT_BRANCH`, else the CI's, else Git's. */
  branch?: string;
  /** `VERDICT_ENVIRONMENT` (staging, production…). */
  environment?: string;
  /** `VERDICT_COMMIT_SHA`, else the CI's, else Git's HEAD. */
  commitSha?: string;
  /** The build's page, when no CI service the reporters know tells it; `VERDICT_BUILD_URL`. */
  buildUrl?: string;
  /** Tags of the run. */
  tags?: string[];
  /** Results per request (default 200). */
  batchSize?: number;
  /** Longest wait before queued results are sent, in ms (default 1000). */
  flushIntervalMs?: number;
  /** How long the end of the test run may wait for what is still being sent, in ms (default 30000). */
  finishTimeoutMs?: number;
  /** Where what could not be sent is kept (default `.verdict/spool`); `VERDICT_SPOOL_DIR`. */
  spoolDir?: string;
  /** `false` (or `VERDICT_DISABLED=1`) turns the reporter off. */
  enabled?: boolean;
  /** When `$GITHUB_STEP_SUMMARY` is set, the run's summary is appended to it (default true); `false` turns it off. */
  githubSummary?: boolean;
}

export interface ReporterSettings {
  baseUrl: string;
  token: string;
  project: string;
  /** The Verdict server's address without its API prefix, for the web app's pages. */
  webBase: string;
  ci: CiBuild | undefined;
  /** The ciRunId given (option, variable) or the CI's; undefined outside CI unless given. */
  ciRunId: string | undefined;
  title?: string;
  branch?: string;
  environment?: string;
  commitSha?: string;
  buildUrl?: string;
  tags?: string[];
  batchSize: number;
  flushIntervalMs: number;
  finishTimeoutMs: number;
  spoolDir: string;
}

export type SettingsResult =
  | { status: 'ready'; settings: ReporterSettings }
  | { status: 'disabled' }
  | { status: 'invalid'; problem: string };

const text = (given: string | undefined, env: Env, name: string): string | undefined => {
  const found = (given ?? env[name])?.trim();
  return found ? found : undefined;
};

const positive = (given: number | undefined, fallback: number): number =>
  given !== undefined && Number.isFinite(given) && given > 0 ? given : fallback;

/**
 * The settings of a reporter, or why it cannot report (one line for the user).
 *
 * @example const result = resolveSettings(options, process.env); if (result.status === 'invalid') log(result.problem);
 */
export function resolveSettings(options: ReporterOptions, env: Env): SettingsResult {
  if (options.enabled === false || ['1', 'true'].includes((env.VERDICT_DISABLED ?? '').toLowerCase())) {
    return { status: 'disabled' };
  }
  const baseUrl = text(options.url, env, 'VERDICT_URL');
  const token = text(options.token, env, 'VERDICT_TOKEN');
  const project = text(options.project, env, 'VERDICT_PROJECT');
  const missing = [
    ...(baseUrl ? [] : ['url (VERDICT_URL)']),
    ...(token ? [] : ['token (VERDICT_TOKEN)']),
    ...(project ? [] : ['project (VERDICT_PROJECT)']),
  ];
  if (missing.length > 0 || !baseUrl || !token || !project) {
    return { status: 'invalid', problem: `not reporting to Verdict: no ${missing.join(', no ')} is set` };
  }
  let webBase: string;
  try {
    webBase = webBaseOf(baseUrl);
  } catch (error) {
    return { status: 'invalid', problem: `not reporting to Verdict: ${(error as Error).message}` };
  }
  const ci = detectCi(env);
  return {
    status: 'ready',
    settings: {
      baseUrl,
      token,
      project,
      webBase,
      ci,
      ciRunId: text(options.ciRunId, env, 'VERDICT_CI_RUN_ID') ?? ci?.ciRunId,
      title: text(options.title, env, 'VERDICT_RUN_TITLE'),
      branch: text(options.branch, env, 'VERDICT_BRANCH') ?? ci?.branch,
      environment: text(options.environment, env, 'VERDICT_ENVIRONMENT'),
      commitSha: text(options.commitSha, env, 'VERDICT_COMMIT_SHA') ?? ci?.commit?.sha,
      buildUrl: text(options.buildUrl, env, 'VERDICT_BUILD_URL') ?? ci?.url,
      tags: options.tags?.filter((tag) => tag.trim() !== ''),
      batchSize: Math.min(1_000, Math.floor(positive(options.batchSize, 200))),
      flushIntervalMs: positive(options.flushIntervalMs, 1_000),
      finishTimeoutMs: positive(options.finishTimeoutMs, 30_000),
      spoolDir: text(options.spoolDir, env, 'VERDICT_SPOOL_DIR') ?? '.verdict/spool',
    },
  };
}

/** `http://host/verdict/api/public/v1` → `http://host/verdict`: where the web app's pages are. */
export function webBaseOf(baseUrl: string): string {
  // The client resolves the address as it will call it (and refuses one that is no http(s) URL).
  const { apiBaseUrl } = createVerdictClient({ baseUrl });
  return apiBaseUrl.replace(/\/api\/(public\/v1|v1\/public)$/i, '');
}

/**
 * The web app's page of a run: `{server}/projects/{projectId}/runs/{runId}`.
 *
 * @example runPageUrl('http://localhost:8080', 'p1', 'r1') // 'http://localhost:8080/projects/p1/runs/r1'
 */
export function runPageUrl(baseUrl: string, projectId: string, runId: string): string {
  return `${webBaseOf(baseUrl)}/projects/${encodeURIComponent(projectId)}/runs/${encodeURIComponent(runId)}`;
}

/** What a reporter knows of the run it starts, for the body of "start a run". */
export interface RunDescription {
  ciRunId: string;
  framework?: { name: string; version?: string };
  shard?: { current: number; total: number };
  startedAt?: string;
  /** From Git when the CI did not tell (see git.ts). */
  git?: { branch?: string; sha?: string; message?: string; author?: string };
}

/**
 * The body of "start a run" from the settings and what the reporter knows: the CI's build and commit, or
 * Git's, the framework, the shard.
 */
export function startBody(settings: ReporterSettings, run: RunDescription): StartRunBody {
  const sha = settings.commitSha ?? run.git?.sha;
  // A message and author only from a source that describes this very commit.
  const described = [settings.ci?.commit, run.git].find((source) => source?.sha === sha);
  const commit = sha
    ? {
        sha,
        ...(described?.message ? { message: described.message } : {}),
        ...(described?.author ? { author: described.author } : {}),
      }
    : undefined;
  const branch = settings.branch ?? run.git?.branch;
  const ci =
    settings.ci || settings.buildUrl
      ? {
          ...(settings.ci ? { provider: settings.ci.provider } : {}),
          ...(settings.ci?.buildId ? { buildId: settings.ci.buildId } : {}),
          ...(settings.buildUrl ? { url: settings.buildUrl } : {}),
        }
      : undefined;
  return {
    ciRunId: run.ciRunId,
    ...(run.framework ? { framework: run.framework } : {}),
    ...(settings.title ? { title: settings.title } : {}),
    ...(branch ? { branch } : {}),
    ...(settings.environment ? { environment: settings.environment } : {}),
    ...(commit ? { commit } : {}),
    ...(ci ? { ci } : {}),
    ...(run.shard ? { shard: run.shard } : {}),
    ...(run.startedAt ? { startedAt: run.startedAt } : {}),
    ...(settings.tags && settings.tags.length > 0 ? { tags: settings.tags } : {}),
  };
}

/**
 * The retry rule of a client that sends from inside a test run: the API's rule (429 and 5xx only, backoff
 * from 1 s, Retry-After honoured) with 3 attempts within 20 s per call, so an outage is found out, told and spooled in
 * seconds rather than minutes; each attempt may wait 30 s for its answer.
 */
export const REPORTER_RETRY = { maxAttempts: 3, maxElapsedMs: 20_000 } as const;
export const REPORTER_TIMEOUT_MS = 30_000;
