// @verdict/client/reporting: what the Verdict reporters and CLI share (Node only): CI detection, settings
// from options and the environment, the background sender with its spool, and spool replay.
export { detectCi, type CiBuild, type Env } from './ci';
export { gitInfo, type GitInfo } from './git';
export { hostInfo, hostNameHash, type RunHost } from './host';
export {
  REPORTER_RETRY,
  REPORTER_TIMEOUT_MS,
  resolveSettings,
  runPageUrl,
  startBody,
  webBaseOf,
  type ReporterOptions,
  type ReporterSettings,
  type RunDescription,
  type SettingsResult,
} from './settings';
export {
  annotationsOf,
  clip,
  clipOutput,
  durationOf,
  outputText,
  RESULT_LIMITS,
  resultRefOf,
  stripAnsi,
} from './resultItems';
export {
  createRunSender,
  failureReason,
  type RunSender,
  type RunSenderOptions,
  type SenderOutcome,
} from './sender';
export {
  readSpool,
  spoolWriter,
  SpoolFormatError,
  SPOOL_VERSION,
  type PendingFile,
  type Spool,
  type SpoolEntry,
  type SpoolHeader,
  type SpoolWriter,
} from './spool';
export { replaySpool, type ReplayOutcome, type ReplayProgress } from './replaySpool';
export {
  coverageFormatOf,
  CoverageFormatError,
  MAX_COVERAGE_FILES,
  parseCobertura,
  parseIstanbulSummary,
  parseLcov,
  readCoverage,
  type CoverageFormat,
} from './coverage';
export { appendStepSummary, stepSummaryFile, summarizeRun, type StepSummaryOptions } from './stepSummary';
export {
  forgivenLine,
  judgeFailures,
  loadQuarantines,
  QUARANTINE_FILE,
  type Forgiven,
  type KnownQuarantine,
  type QuarantineList,
  type RunFailureSeen,
} from './quarantine';
