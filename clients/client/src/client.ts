/**
 * The Verdict client: the typed openapi-fetch client of every public operation (`api`), sent through the
 * retrying transport, and the few helpers reporters and the CLI need around ingest. Helpers return the
 * envelope's `data` and throw VerdictApiError / VerdictNetworkError; `api` answers `{data, error,
 * response}` as openapi-fetch does (`unwrap` turns an error into a VerdictApiError).
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { apiBases } from './baseUrl';
import { VerdictApiError, VerdictConfigError } from './errors';
import { baseName, fileSource, multipartBody, streamOf } from './files';
import type { Replay } from './replay';
import { userAgentHeader } from './userAgent';
import { retryAfterMs, retryPolicy, type RetryOptions } from './retry';
import { createTransport, type AttemptRequest, type FetchLike } from './transport';
import type {
  AddResultsSummary,
  ArtifactSummary,
  CompareQuery,
  CoverageBody,
  CoverageReport,
  DebugBundle,
  DebugBundleQuery,
  ErrorGroupDetail,
  ErrorGroupList,
  ErrorGroupQuery,
  CreateQuarantineBody,
  GateRules,
  GateRulesDocument,
  Quarantine,
  QuarantineList,
  QuarantinesQuery,
  QuarantinedTests,
  QuarantinePolicy,
  QuarantinePolicyDocument,
  RunGate,
  ErrorGroupsQuery,
  FinishRunBody,
  ImportQuery,
  paths,
  ResultItem,
  RunDetail,
  RunComparison,
  RunDetailQuery,
  RunList,
  ListRunsQuery,
  RunSummary,
  StartRunBody,
  TokenInfo,
} from './types';

/** Headers every request carries (a CSRF token in a browser…), or a function giving them per request. */
export type HeadersOption =
  Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

export interface VerdictClientOptions {
  /**
   * The server: its origin (`http://localhost:8080`), its address behind a proxy
   * (`https://ci.example.com/verdict`), or a full API base (`…/api/public/v1`). Relative (`/`) in a browser.
   */
  baseUrl: string;
  /** A personal (`svc_pat_…`) or project (`svcp_…`) token, sent as `Authorization: Bearer`. */
  token?: string;
  /** The project of project-scoped helpers when a call names none. */
  project?: string;
  /** The fetch to send with (default: the global one). */
  fetch?: FetchLike;
  headers?: HeadersOption;
  /** `include` for a browser's cookie session. */
  credentials?: RequestInit['credentials'];
  /** Spec §7's retry rule, tuned (attempts, total time, waits); `false`: a single attempt. */
  retry?: RetryOptions | false;
  /** Milliseconds an attempt may wait for the answer's headers (default 60000; 0: no limit). */
  timeoutMs?: number;
  /** The User-Agent sent from Node (default `@verdict/client/<version>`); browsers send their own. */
  userAgent?: string;
}

/** Options of one call: its project (default: the client's) and an abort signal. */
export interface CallOptions {
  project?: string;
  signal?: AbortSignal;
}

export interface AddResultsOptions extends CallOptions {
  /** Results per request (default and maximum 1000). */
  batchSize?: number;
  /** Largest JSON body of one request in bytes (default 8 MiB, under the API's 10 MiB). */
  maxBatchBytes?: number;
}

/** A file to upload: from a path (Node, streamed from disk), or bytes already in memory. */
export type ArtifactUpload = {
  /** The artifact's name (default: the file name of `path`). */
  name?: string;
  /** Its media type, e.g. `image/png`. */
  contentType: string;
  /** The result it belongs to (the result's attachment names its `artifactId`). */
  resultRef?: string;
} & ({ path: string } | { data: Blob | Uint8Array | string });

/** A report to import: its content, or the path of a file (Node, streamed from disk). */
export type ReportSource = string | Uint8Array | { path: string };

export interface StartedRun {
  run: RunSummary;
  /** False when the run already existed (another shard, or a replay, with the same ciRunId or report). */
  created: boolean;
}

export interface VerdictClient {
  /** The typed client of every public operation; paths as in the API reference (`/{projectId}/…`). */
  readonly api: Client<paths>;
  /** The public API base every path is relative to. */
  readonly apiBaseUrl: string;
  /** The default project, when one was given. */
  readonly project: string | undefined;
  tokenInfo(options?: CallOptions): Promise<TokenInfo>;
  /** Starts a run, or joins the run of its `ciRunId` (shards of one CI build). */
  startRun(body?: StartRunBody, options?: CallOptions): Promise<StartedRun>;
  /** Sends results in batches (by count and size), one after another; sums what each recorded. */
  addResults(
    runId: string,
    results: readonly ResultItem[],
    options?: AddResultsOptions,
  ): Promise<AddResultsSummary>;
  uploadArtifact(runId: string, artifact: ArtifactUpload, options?: CallOptions): Promise<ArtifactSummary>;
  addCoverage(runId: string, coverage: CoverageBody, options?: CallOptions): Promise<CoverageReport>;
  /** Finishes a run, or a shard of it (`shard`); finishing again is harmless. */
  finishRun(runId: string, body?: FinishRunBody, options?: CallOptions): Promise<RunSummary>;
  getRun(runId: string, query?: RunDetailQuery, options?: CallOptions): Promise<RunDetail>;
  listRuns(query?: ListRunsQuery, options?: CallOptions): Promise<RunList>;
  debugBundle(
    query: Omit<DebugBundleQuery, 'as' | 'budgetChars'>,
    options?: CallOptions,
  ): Promise<DebugBundle>;
  debugBundleMarkdown(query: Omit<DebugBundleQuery, 'as'>, options?: CallOptions): Promise<string>;
  /** What changed between a run and its base (`base`, `baseBranch`, else the run's own base branch). */
  compareRuns(runId: string, query?: CompareQuery, options?: CallOptions): Promise<RunComparison>;
  /** A page of error groups: failed attempts grouped by error signature. */
  listErrorGroups(query?: ErrorGroupsQuery, options?: CallOptions): Promise<ErrorGroupList>;
  /** One error group, with the tests and runs it hit. */
  getErrorGroup(
    signatureId: string,
    query?: ErrorGroupQuery,
    options?: CallOptions,
  ): Promise<ErrorGroupDetail>;
  /** A run's quality gate: pending until the run (its last shard) finishes, then passed or failed. */
  getRunGate(runId: string, options?: CallOptions): Promise<RunGate>;
  getGateRules(options?: CallOptions): Promise<GateRulesDocument>;
  /** Sets the project's gate rules (owners and admins); an empty object removes the gate. */
  setGateRules(rules: GateRules, options?: CallOptions): Promise<GateRulesDocument>;
  /** A page of the project's quarantines (active by default). */
  listQuarantines(query?: QuarantinesQuery, options?: CallOptions): Promise<QuarantineList>;
  quarantineTest(body: CreateQuarantineBody, options?: CallOptions): Promise<Quarantine>;
  /** Every test quarantined now, with the signatures each forgives (one request, not paginated). */
  listQuarantinedTests(options?: CallOptions): Promise<QuarantinedTests>;
  extendQuarantine(quarantineId: string, expiresAt: string, options?: CallOptions): Promise<Quarantine>;
  liftQuarantine(quarantineId: string, reason?: string, options?: CallOptions): Promise<Quarantine>;
  getQuarantinePolicy(options?: CallOptions): Promise<QuarantinePolicyDocument>;
  /** Sets the auto-quarantine policy (members and above). */
  setQuarantinePolicy(policy: QuarantinePolicy, options?: CallOptions): Promise<QuarantinePolicyDocument>;
  /** Imports JUnit XML as a finished run; importing the same report again answers its run. */
  importJunit(report: ReportSource, query?: ImportQuery, options?: CallOptions): Promise<StartedRun>;
  /** Imports a report of Playwright's `json` reporter (the object, its text, or its file). */
  importPlaywright(
    report: ReportSource | object,
    query?: ImportQuery,
    options?: CallOptions,
  ): Promise<StartedRun>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** The API's batch limit (API.md: at most 1,000 results, 10 MiB). */
export const MAX_RESULTS_PER_REQUEST = 1_000;
const DEFAULT_MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** The error an answer that is not a success stands for, with the envelope's code and message. */
export function apiErrorOf(
  response: Response,
  body: unknown,
  request?: { method?: string; url?: string; attempts?: number },
): VerdictApiError {
  const envelope = (body as { error?: { code?: unknown; message?: unknown } } | null | undefined)?.error;
  const hasEnvelope = typeof envelope?.code === 'string';
  const text = typeof body === 'string' ? body.trim().slice(0, 300) : '';
  const retryAfter = retryAfterMs(response.headers.get('retry-after'), Date.now());
  const requestId = response.headers.get('x-request-id');
  const method = request?.method;
  const url = request?.url ?? (response.url || undefined);
  return new VerdictApiError({
    status: response.status,
    code: hasEnvelope ? String(envelope?.code) : `HTTP_${response.status}`,
    message: hasEnvelope
      ? String(envelope?.message ?? '')
      : text || `${response.status} ${response.statusText}`.trim(),
    ...(requestId ? { requestId } : {}),
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    ...(method ? { method } : {}),
    ...(url ? { url } : {}),
    ...(request?.attempts === undefined ? {} : { attempts: request.attempts }),
    body,
  });
}

/**
 * The success body of an openapi-fetch answer, or its error as a VerdictApiError.
 *
 * @example const { data: runs, pagination } = unwrap(await verdict.api.GET('/{projectId}/test-runs', { params: { path: { projectId } } }));
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  throw apiErrorOf(result.response, result.error);
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Creates a client. Nothing is sent until a call is made.
 *
 * @example const verdict = createVerdictClient({ baseUrl: 'http://localhost:8080', token, project });
 */
export function createVerdictClient(options: VerdictClientOptions): VerdictClient {
  const bases = apiBases(options.baseUrl);
  const apiBaseUrl = bases.api.href.replace(/\/+$/, '');
  const baseFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const retry = retryPolicy(options.retry);
  const transport = createTransport({
    fetch: baseFetch,
    retry,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    apiBase: bases.api,
  });

  async function defaultHeaders(): Promise<Record<string, string>> {
    const given = typeof options.headers === 'function' ? await options.headers() : (options.headers ?? {});
    return {
      ...userAgentHeader(options.userAgent),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...given,
    };
  }

  const api = createClient<paths>({
    baseUrl: apiBaseUrl,
    fetch: (request: Request) => transport.fetch(request),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  const withDefaults: Middleware = {
    async onRequest({ request }) {
      // A header given with the call wins over the client's.
      for (const [name, value] of Object.entries(await defaultHeaders())) {
        if (!request.headers.has(name)) request.headers.set(name, value);
      }
      return request;
    },
  };
  api.use(withDefaults);

  const projectOf = (call?: CallOptions): string => {
    const project = call?.project ?? options.project;
    if (!project) {
      throw new VerdictConfigError('No project: pass `project` to createVerdictClient or to this call');
    }
    return project;
  };

  /** Sends a request built for each attempt (streamed bodies) and reads its envelope's data. */
  async function sendForData<T>(
    path: string,
    init: {
      method: string;
      query?: Record<string, string | undefined>;
      body: () => Promise<{
        body: NonNullable<RequestInit['body']> | ReadableStream<Uint8Array>;
        contentType?: string;
      }>;
    },
    replay: Replay,
    signal: AbortSignal | undefined,
  ): Promise<{ data: T; status: number }> {
    const url = new URL(`${apiBaseUrl}${path}`);
    for (const [key, value] of Object.entries(init.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    const build = async (): Promise<AttemptRequest> => {
      const { body, contentType } = await init.body();
      const headers = await defaultHeaders();
      if (contentType) headers['content-type'] = contentType;
      return {
        url: url.href,
        init: {
          method: init.method,
          headers,
          body: body as RequestInit['body'],
          ...(options.credentials ? { credentials: options.credentials } : {}),
          // A stream body is sent as it is read (Node's fetch asks for this to be said).
          ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
        },
      };
    };
    const response = await transport.send(build, replay, signal);
    const parsed = await bodyOf(response);
    if (!response.ok) {
      throw apiErrorOf(response, parsed, {
        method: init.method,
        url: url.href,
        attempts: transport.attemptsOf(response),
      });
    }
    return { data: (parsed as { data: T }).data, status: response.status };
  }

  /** The success body of an openapi-fetch call, with the attempts in the error when it failed. */
  function ok<T>(result: { data?: T; error?: unknown; response: Response }, method: string): T {
    if (result.response.ok) return result.data as T;
    throw apiErrorOf(result.response, result.error, {
      method,
      url: result.response.url,
      attempts: transport.attemptsOf(result.response),
    });
  }

  const reportBody = (report: ReportSource, contentType: string) => async () => {
    if (typeof report === 'object' && !(report instanceof Uint8Array)) {
      const file = await fileSource(report.path);
      return { body: streamOf(file.chunks), contentType };
    }
    return { body: report as NonNullable<RequestInit['body']>, contentType };
  };

  const client: VerdictClient = {
    api,
    apiBaseUrl,
    project: options.project,

    async tokenInfo(call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/token-info', {
        params: { path: { projectId } },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET').data;
    },

    async startRun(body = {}, call) {
      const projectId = projectOf(call);
      const result = await api.POST('/{projectId}/test-runs', {
        params: { path: { projectId } },
        body,
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return { run: ok(result, 'POST').data, created: result.response.status === 201 };
    },

    async addResults(runId, results, call) {
      const projectId = projectOf(call);
      const batchSize = Math.min(
        MAX_RESULTS_PER_REQUEST,
        Math.max(1, call?.batchSize ?? MAX_RESULTS_PER_REQUEST),
      );
      const maxBytes = call?.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES;
      const total: AddResultsSummary = { accepted: 0, duplicates: 0 };
      for (const batch of batchesOf(results, batchSize, maxBytes)) {
        const result = await api.POST('/{projectId}/test-runs/{runId}/results', {
          params: { path: { projectId, runId } },
          body: { results: batch.items },
          // Each item was serialised once already, to measure it.
          bodySerializer: () => batch.json,
          ...(call?.signal ? { signal: call.signal } : {}),
        });
        const recorded = ok(result, 'POST').data;
        total.accepted += recorded.accepted;
        total.duplicates += recorded.duplicates;
      }
      return total;
    },

    async uploadArtifact(runId, artifact, call) {
      const projectId = projectOf(call);
      const name = artifact.name ?? ('path' in artifact ? baseName(artifact.path) : undefined);
      if (!name) throw new VerdictConfigError('uploadArtifact: `name` is required when uploading data');
      const fields: [string, string][] = [
        ['name', name],
        ['contentType', artifact.contentType],
        ...(artifact.resultRef ? [['resultRef', artifact.resultRef] as [string, string]] : []),
      ];
      const body = async () => {
        if ('path' in artifact) {
          const file = await fileSource(artifact.path);
          const multipart = multipartBody(fields, {
            field: 'file',
            filename: name,
            contentType: artifact.contentType,
            chunks: file.chunks,
          });
          return { body: multipart.body, contentType: multipart.contentType };
        }
        const form = new FormData();
        for (const [field, value] of fields) form.append(field, value);
        const blob =
          artifact.data instanceof Blob
            ? artifact.data
            : new Blob([artifact.data as unknown as Blob], { type: artifact.contentType });
        form.append('file', blob, name);
        return { body: form };
      };
      const path = `/${encodeURIComponent(projectId)}/test-runs/${encodeURIComponent(runId)}/artifacts`;
      const { data } = await sendForData<ArtifactSummary>(
        path,
        { method: 'POST', body },
        'safe',
        call?.signal,
      );
      return data;
    },

    async addCoverage(runId, coverage, call) {
      const projectId = projectOf(call);
      const result = await api.POST('/{projectId}/test-runs/{runId}/coverage', {
        params: { path: { projectId, runId } },
        body: coverage,
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'POST').data;
    },

    async finishRun(runId, body = {}, call) {
      const projectId = projectOf(call);
      const result = await api.POST('/{projectId}/test-runs/{runId}/finish', {
        params: { path: { projectId, runId } },
        body,
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'POST').data;
    },

    async getRun(runId, query, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/test-runs/{runId}', {
        params: { path: { projectId, runId }, ...(query ? { query } : {}) },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET').data;
    },

    async listRuns(query, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/test-runs', {
        params: { path: { projectId }, ...(query ? { query } : {}) },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET');
    },

    async debugBundle(query, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/debug-bundle', {
        params: { path: { projectId }, query: { ...query, as: 'json' } },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET');
    },

    async debugBundleMarkdown(query, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/debug-bundle', {
        params: { path: { projectId }, query: { ...query, as: 'markdown' } },
        parseAs: 'text',
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      if (!result.response.ok) {
        // As text, the error envelope is still JSON.
        throw apiErrorOf(result.response, parseJson(result.error), {
          method: 'GET',
          url: result.response.url,
          attempts: transport.attemptsOf(result.response),
        });
      }
      return result.data as unknown as string;
    },

    async compareRuns(runId, query, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/test-runs/{runId}/compare', {
        params: { path: { projectId, runId }, ...(query ? { query } : {}) },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET').data;
    },

    async getRunGate(runId, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/test-runs/{runId}/gate', {
        params: { path: { projectId, runId } },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET').data;
    },

    async getGateRules(call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/gate-rules', {
        params: { path: { projectId } },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET').data;
    },

    async setGateRules(rules, call) {
      const projectId = projectOf(call);
      const result = await api.PUT('/{projectId}/gate-rules', {
        params: { path: { projectId } },
        body: rules,
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'PUT').data;
    },

    async listQuarantines(query, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/quarantines', {
        params: { path: { projectId }, ...(query ? { query } : {}) },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET');
    },

    async getQuarantinePolicy(call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/quarantine-policy', {
        params: { path: { projectId } },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET').data;
    },

    async setQuarantinePolicy(policy, call) {
      const projectId = projectOf(call);
      const result = await api.PUT('/{projectId}/quarantine-policy', {
        params: { path: { projectId } },
        body: policy,
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'PUT').data;
    },

    async listQuarantinedTests(call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/quarantined-tests', {
        params: { path: { projectId } },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET').data;
    },

    async quarantineTest(body, call) {
      const projectId = projectOf(call);
      const result = await api.POST('/{projectId}/quarantines', {
        params: { path: { projectId } },
        body,
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'POST').data;
    },

    async extendQuarantine(quarantineId, expiresAt, call) {
      const projectId = projectOf(call);
      const result = await api.POST('/{projectId}/quarantines/{quarantineId}/extend', {
        params: { path: { projectId, quarantineId } },
        body: { expiresAt },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'POST').data;
    },

    async liftQuarantine(quarantineId, reason, call) {
      const projectId = projectOf(call);
      const result = await api.POST('/{projectId}/quarantines/{quarantineId}/lift', {
        params: { path: { projectId, quarantineId } },
        body: reason === undefined ? {} : { reason },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'POST').data;
    },

    async listErrorGroups(query, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/errors', {
        params: { path: { projectId }, ...(query ? { query } : {}) },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET');
    },

    async getErrorGroup(signatureId, query, call) {
      const projectId = projectOf(call);
      const result = await api.GET('/{projectId}/errors/{signatureId}', {
        params: { path: { projectId, signatureId }, ...(query ? { query } : {}) },
        ...(call?.signal ? { signal: call.signal } : {}),
      });
      return ok(result, 'GET').data;
    },

    async importJunit(report, query, call) {
      const projectId = projectOf(call);
      const { data, status } = await sendForData<RunSummary>(
        `/${encodeURIComponent(projectId)}/imports/junit`,
        { method: 'POST', query: { ...query }, body: reportBody(report, 'application/xml') },
        'safe',
        call?.signal,
      );
      return { run: data, created: status === 201 };
    },

    async importPlaywright(report, query, call) {
      const projectId = projectOf(call);
      const source: ReportSource =
        typeof report === 'string' || report instanceof Uint8Array || isPathSource(report)
          ? report
          : JSON.stringify(report);
      const { data, status } = await sendForData<RunSummary>(
        `/${encodeURIComponent(projectId)}/imports/playwright`,
        { method: 'POST', query: { ...query }, body: reportBody(source, 'application/json') },
        'safe',
        call?.signal,
      );
      return { run: data, created: status === 201 };
    },
  };
  return client;
}

function isPathSource(value: object): value is { path: string } {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'path' && typeof (value as { path?: unknown }).path === 'string';
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * Splits results into request bodies of at most `size` items and about `maxBytes` bytes (an item larger
 * than that goes alone, for the API to judge). Each item is serialised once, here.
 */
export function* batchesOf<T>(
  items: readonly T[],
  size: number,
  maxBytes: number,
): Generator<{ items: T[]; json: string }> {
  const encoder = new TextEncoder();
  const envelope = '{"results":[]}'.length;
  let batch: T[] = [];
  let parts: string[] = [];
  let bytes = envelope;
  const flush = () => {
    const done = { items: batch, json: `{"results":[${parts.join(',')}]}` };
    batch = [];
    parts = [];
    bytes = envelope;
    return done;
  };
  for (const item of items) {
    const json = JSON.stringify(item);
    const itemBytes = encoder.encode(json).length + 1;
    if (batch.length > 0 && (batch.length >= size || bytes + itemBytes > maxBytes)) yield flush();
    batch.push(item);
    parts.push(json);
    bytes += itemBytes;
  }
  if (batch.length > 0) yield flush();
}
