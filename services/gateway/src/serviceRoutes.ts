import {
  analyticsRoutes,
  debugBundleRoutes,
  failureAnalysisRoutes,
  gateRoutes,
  quarantineRoutes,
  manualTestingRoutes,
  testResultsImportRoutes,
  testResultsIngestRoutes,
  testResultsReadRoutes,
  webhookRoutes,
} from '@verdict/contracts';
import type { RouteSpec } from '@verdict/platform';

/**
 * The routes of each service behind the gateway, as the contracts declare them: the distributed gateway
 * forwards by them, and the published OpenAPI document (and `@verdict/client`'s types) is built from them
 * without starting any service.
 */
export const SERVICE_ROUTES = {
  'test-results': [
    ...testResultsIngestRoutes,
    ...testResultsImportRoutes,
    ...testResultsReadRoutes,
    ...debugBundleRoutes,
    ...failureAnalysisRoutes,
    ...quarantineRoutes,
    ...gateRoutes,
  ],
  'manual-testing': manualTestingRoutes,
  webhooks: webhookRoutes,
  analytics: analyticsRoutes,
} satisfies Record<string, readonly RouteSpec[]>;
