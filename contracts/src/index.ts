export * from './errors';
export * from './envelope';
export * from './events';
export * from './eventCatalog';
export * from './system';
export * from './identity';
export * from './gateway';
export * from './testResults';
export * from './testResultsEvents';
export * from './testResultsIngest';
export * from './http';
export * from './instant';
export * from './testResultsRoutes';
export * from './testResultsReads';
export * from './testResultsReadRoutes';
export * from './debugBundle';
export * from './debugBundleRoutes';
export * from './manualTesting';
export * from './manualTestingEvents';
export * from './manualTestingRoutes';
export * from './webhooks';
export * from './webhookSignature';
export * from './analytics';
export * from './analyticsRoutes';
export * from './deadLetters';
export * from './gatewayRoutes';
export {
  ERROR_SIGNATURE_VERSION,
  errorSignature,
  normaliseMessage,
  type SignatureInput,
} from './errorSignature';
export * from './errorSignatureSchemas';
export * from './failureAnalysis';
export * from './failureAnalysisRoutes';
export * from './quarantineEvents';
export * from './gates';
export * from './quarantine';
export * from './quarantineRoutes';
