// @verdict/client: the typed HTTP client of the Verdict API (see README.md).
export {
  createVerdictClient,
  unwrap,
  apiErrorOf,
  batchesOf,
  MAX_RESULTS_PER_REQUEST,
  type AddResultsOptions,
  type ArtifactUpload,
  type CallOptions,
  type HeadersOption,
  type ReportSource,
  type StartedRun,
  type VerdictClient,
  type VerdictClientOptions,
} from './client';
export { createVerdictAdminClient, type VerdictAdminClient, type VerdictAdminClientOptions } from './admin';
export {
  VerdictApiError,
  VerdictConfigError,
  VerdictError,
  VerdictNetworkError,
  type ApiErrorDetails,
  type RequestDescription,
} from './errors';
export {
  backoffDelay,
  DEFAULT_RETRY,
  isRetriableStatus,
  retryAfterMs,
  type RetryEvent,
  type RetryOptions,
} from './retry';
export { replayRule, type Replay, type ReplayRule } from './replay';
export type { FetchLike } from './transport';
export type * from './types';
export { VERSION } from './generated/version';
export { MANUAL_CASE_VALUES, RUN_CASE_RESULTS } from './generated/values';
export {
  CATEGORY_LABELS,
  errorGroupUrl,
  renderComparison,
  renderRunSummary,
  testPageUrl,
  type RenderOptions,
  type RunSummaryInput,
} from './summary/markdown';
export { loadRunSummary, type LoadSummaryOptions } from './summary/load';
