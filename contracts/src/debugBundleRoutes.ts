import { z } from 'zod';
import { BundleFormat, BundleView, DebugBundleEnvelope } from './debugBundle';
import { ErrorEnvelope } from './envelope';
import { defineRoutes, READER_ROLES } from './http';
import { ProjectReadPath } from './testResultsReads';

/**
 * The query of GET /{projectId}/debug-bundle for the OpenAPI document only. The service parses the raw
 * query with its own parser (services/test-results/src/debugBundle/params.ts), which applies the rules
 * across parameters that a schema cannot (spec §4.2's ten rejections); the limits here mirror spec §8.
 */
/** The longest id (runId, suiteId, caseId, project) the debug bundle reads. */
export const DEBUG_BUNDLE_ID_MAX_LENGTH = 512;
const BundleId = z.string().min(1).max(DEBUG_BUNDLE_ID_MAX_LENGTH);

export const DebugBundleQueryDoc = z.object({
  runId: BundleId.optional().describe('Required for run scope, and together with suiteId'),
  suiteId: BundleId.optional().describe(
    'Suite scope: a spec file path of the run (a suite is a spec file); requires runId',
  ),
  caseId: BundleId.optional().describe('Test scope; runId optional (default: the latest run of the test)'),
  attempt: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Requires caseId; 0-based; default the latest attempt; out of range: 400 INVALID_ATTEMPT'),
  as: BundleFormat.default('json').describe('markdown returns a text/markdown body, not an envelope'),
  view: BundleView.default('full').describe(
    'Test scope: brief omits steps; headline omits steps, stdout, stderr and caps artifacts at 5 with totals. Suite scope: brief and headline null each failureWindow. Run scope: full only.',
  ),
  page: z.number().int().min(1).max(1_000_000).default(1).describe('Run and suite scopes only'),
  limit: z.number().int().min(1).max(50).default(10).describe('Run and suite scopes only'),
  budgetChars: z
    .number()
    .int()
    .min(1)
    .max(128_000)
    .optional()
    .describe('Maximum length of the Markdown body; requires as=markdown'),
  project: BundleId.optional().describe(
    'Test scope: the platform (Playwright project) whose attempts to show; default the one where the test went worst in the run. Requires caseId (run and suite scopes list each failing platform as its own item).',
  ),
});

/** The debug bundle endpoint (spec §4.2), served by the test-results service. */
export const debugBundleRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/debug-bundle',
    summary: 'Failure-debugging data for a run, a suite (spec file) or a test case, as JSON or Markdown',
    description: [
      'Scope: caseId (runId optional) → test; suiteId + runId → suite; runId → run. The most specific wins.',
      'Run and suite scopes return `pagination` beside `data`; the test scope is not paginated.',
      'as=markdown returns a text/markdown body (no envelope), cut to budgetChars when sent.',
      '400 VALIDATION_ERROR: no id; suiteId without runId; invalid as, view or budgetChars; view other than full at run scope; attempt without caseId; non-default page or limit at test scope; budgetChars without as=markdown; a parameter sent twice; the retired format, detail, maxLength; page or limit out of range.',
      '400 INVALID_ATTEMPT: attempt out of range.',
      '404 TEST_RUN_NOT_FOUND, TEST_SUITE_NOT_FOUND, TEST_CASE_NOT_FOUND: unknown run, suite or case.',
    ].join('\n\n'),
    tag: 'Debug Bundle',
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectReadPath,
    query: DebugBundleQueryDoc,
    rawInput: ['query'],
    responses: {
      // One content type per status is all ResponseSpec holds: the JSON one is the schema, the Markdown
      // body (same status) is named here and in the description.
      200: {
        description:
          'as=json: the bundle in the envelope. as=markdown: a text/markdown document, no envelope.',
        schema: DebugBundleEnvelope,
      },
      400: { description: 'VALIDATION_ERROR (the rules above) or INVALID_ATTEMPT', schema: ErrorEnvelope },
      404: {
        description: 'TEST_RUN_NOT_FOUND, TEST_SUITE_NOT_FOUND or TEST_CASE_NOT_FOUND',
        schema: ErrorEnvelope,
      },
    },
  },
]);
