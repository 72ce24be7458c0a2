/**
 * The debug bundle's payload schemas live in @verdict/contracts (contracts/src/debugBundle.ts), since the
 * route spec (and through it the gateway's OpenAPI document) needs them and contracts cannot import a
 * service. Re-exported here so the debug bundle's own modules keep importing from './types'.
 */
export {
  BundleScope,
  BundleView,
  BundleFormat,
  BundleRunStatus,
  BundleSuiteStatus,
  BundleStats,
  BundleErrorSummary,
  BundleError,
  WindowStep,
  FailureWindow,
  BundleSpec,
  RunBundleItem,
  SuiteBundleItem,
  BundleMeta,
  TestBundleMeta,
  BundleEnvironment,
  BundleLinks,
  TestBundleLinks,
  BundleTest,
  AttemptHistoryEntry,
  BundleArtifact,
  ArtifactTotals,
  BundleArtifacts,
  RunBundle,
  SuiteBundle,
  TestBundle,
  DebugBundle,
  DebugBundleEnvelope,
} from '@verdict/contracts';
