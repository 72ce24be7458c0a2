import { z } from 'zod';
import { ErrorEnvelope, successEnvelope } from './envelope';
import { defineRoutes, WRITER_ROLES } from './http';
import {
  AddCoverageRequest,
  AddResultsResponse,
  ArtifactSummary,
  FinishRunRequest,
  RunSummary,
  StartRunRequest,
} from './testResultsIngest';
import { CoverageReport } from './testResultsEvents';
import { ResultItem } from './testResults';
import { ArtifactUploadFields, MAX_RESULTS_PER_BATCH } from './testResultsIngest';

/** An error answer of an ingest route, as it is documented beside its success. */
const refused = (description: string) => ({ description, schema: ErrorEnvelope });
const INVALID = refused(
  'VALIDATION_ERROR: a parameter or the body is invalid; the message names each problem',
);
const NO_RUN = refused('NOT_FOUND: no such run in this project');
const FINISHED = refused('RUN_FINISHED: the run is finished and takes nothing more');
const TOO_LARGE = refused('PAYLOAD_TOO_LARGE: the body is over its size limit');

/**
 * The OpenAPI body of "add results": the items the route checks one by one (AddResultsRequest keeps
 * them unknown so that a refusal names every bad item by its index).
 */
const AddResultsBody = z.object({ results: z.array(ResultItem).max(MAX_RESULTS_PER_BATCH) });

export const RunPath = z.object({ projectId: z.string().min(1), runId: z.string().min(1) });
const ProjectOnly = z.object({ projectId: z.string().min(1) });

/** Ingest of automated runs (API.md, "Ingest — automated runs"), served by the test-results service. */
export const testResultsIngestRoutes = defineRoutes([
  {
    method: 'post',
    path: '/{projectId}/test-runs',
    summary: 'Start a run; shards sending the same ciRunId join one run (201 created, 200 joined)',
    tag: 'Test Runs',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ProjectOnly,
    body: StartRunRequest,
    links: {
      addResults: {
        to: 'post /{projectId}/test-runs/{runId}/results',
        parameters: { runId: '$response.body#/data/id' },
      },
      uploadArtifact: {
        to: 'post /{projectId}/test-runs/{runId}/artifacts',
        parameters: { runId: '$response.body#/data/id' },
      },
      addCoverage: {
        to: 'post /{projectId}/test-runs/{runId}/coverage',
        parameters: { runId: '$response.body#/data/id' },
      },
      finish: {
        to: 'post /{projectId}/test-runs/{runId}/finish',
        parameters: { runId: '$response.body#/data/id' },
      },
      getRun: { to: 'get /{projectId}/test-runs/{runId}', parameters: { runId: '$response.body#/data/id' } },
      compare: {
        to: 'get /{projectId}/test-runs/{runId}/compare',
        parameters: { runId: '$response.body#/data/id' },
      },
      gate: {
        to: 'get /{projectId}/test-runs/{runId}/gate',
        parameters: { runId: '$response.body#/data/id' },
      },
    },
    responses: {
      201: { description: 'The run was created', schema: successEnvelope(RunSummary) },
      200: {
        description: 'The run with this ciRunId already existed: joined',
        schema: successEnvelope(RunSummary),
      },
      400: INVALID,
      409: refused(
        'CONFLICT: shard.total differs from the run’s; RUN_FINISHED: the run of this ciRunId is finished',
      ),
    },
  },
  {
    method: 'post',
    path: '/{projectId}/test-runs/{runId}/results',
    summary: 'Add up to 1,000 results (JSON `{results}` or NDJSON, one result a line, at most 10 MiB)',
    description:
      'A result is identified in its run by (file, titlePath, project, attempt): sending it again counts as a ' +
      'duplicate. The batch is accepted or rejected whole; a refusal names the index and field of every bad item. ' +
      'A finished run answers 409 RUN_FINISHED.',
    tag: 'Test Runs',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: RunPath,
    body: AddResultsBody,
    bodyContentTypes: ['application/json', 'application/x-ndjson'],
    // Checked item by item, so that a refusal names every bad item by its index.
    rawInput: ['body'],
    links: {
      finish: { to: 'post /{projectId}/test-runs/{runId}/finish', parameters: {} },
      getRun: { to: 'get /{projectId}/test-runs/{runId}', parameters: {} },
    },
    responses: {
      202: { description: 'Durably recorded', schema: successEnvelope(AddResultsResponse) },
      400: INVALID,
      404: NO_RUN,
      409: FINISHED,
      413: TOO_LARGE,
    },
  },
  {
    method: 'post',
    path: '/{projectId}/test-runs/{runId}/artifacts',
    summary: 'Upload an artifact (multipart: `file`, `name`, `contentType`, optional `resultRef`)',
    tag: 'Test Runs',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: RunPath,
    bodyContentTypes: ['multipart/form-data'],
    rawInput: ['body'],
    // The fields the route parses (ArtifactUploadFields), and the file part.
    body: ArtifactUploadFields.extend({
      file: z.string().meta({ format: 'binary' }).describe('The artifact’s bytes'),
    }),
    responses: {
      201: {
        description: 'Stored; an upload of the same file, name, type and resultRef answers the same artifact',
        schema: successEnvelope(ArtifactSummary),
      },
      400: INVALID,
      404: NO_RUN,
      409: FINISHED,
      413: refused('PAYLOAD_TOO_LARGE: the file is over VERDICT_ARTIFACT_MAX_BYTES'),
    },
  },
  {
    method: 'post',
    path: '/{projectId}/test-runs/{runId}/coverage',
    summary: 'Add the run’s code coverage',
    tag: 'Test Runs',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: RunPath,
    body: AddCoverageRequest,
    responses: {
      200: { description: 'Recorded', schema: successEnvelope(CoverageReport) },
      400: INVALID,
      404: NO_RUN,
      409: FINISHED,
    },
  },
  {
    method: 'post',
    path: '/{projectId}/test-runs/{runId}/finish',
    summary: 'Finish a run (with shards, once every shard has finished); retrying is harmless',
    tag: 'Test Runs',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: RunPath,
    body: FinishRunRequest,
    bodyRequired: false,
    links: {
      getRun: { to: 'get /{projectId}/test-runs/{runId}', parameters: {} },
      gate: { to: 'get /{projectId}/test-runs/{runId}/gate', parameters: {} },
      compare: { to: 'get /{projectId}/test-runs/{runId}/compare', parameters: {} },
    },
    responses: {
      200: { description: 'The run', schema: successEnvelope(RunSummary) },
      400: INVALID,
      404: NO_RUN,
      409: refused('CONFLICT: shard.total differs from the run’s'),
    },
  },
]);

/** Where an import lands: the same fields as a run's start, given as query parameters. */
export const ImportQuery = z.strictObject({
  branch: z.string().trim().min(1).max(500).optional(),
  environment: z.string().trim().min(1).max(200).optional(),
  commitSha: z.string().trim().min(1).max(200).optional(),
  ciRunId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'Joins (or replays into) the run of this ciRunId; by default the report’s own digest, so a replay is harmless',
    ),
  finish: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe(
      'false leaves the run running (201 or 200 with status running): import more reports into it under the same ciRunId, ' +
        'then finish it with POST /{projectId}/test-runs/{runId}/finish (shard 1 of 1). Default true: the import finishes the run',
    ),
});
export type ImportQuery = z.infer<typeof ImportQuery>;

/**
 * How an import keeps the files a report names by path (Playwright's screenshots, videos, traces), which
 * only the machine that ran the tests can read. Said once for the OpenAPI document and the docs.
 */
const PLAYWRIGHT_IMPORT_ATTACHMENTS =
  'Attachments embedded in the report (base64 `body`) are stored as artifacts of the run. Attachments named by `path` ' +
  'are files on the machine that ran the tests: upload each one first, then import. Start the run with a ciRunId ' +
  '(POST /{projectId}/test-runs with `{ciRunId, shard: {current: 1, total: 1}}`), upload every file to it ' +
  '(POST …/artifacts) with `resultRef` set to the attachment’s `path` exactly as the report writes it, then import ' +
  'with `?ciRunId=` the same: each attachment whose path names an uploaded artifact (same resultRef and name) is ' +
  'linked to its result, as a reporter links it (download URLs, the debug bundle’s traceViewerUrl). A path nothing ' +
  'was uploaded for is left out. `verdict import playwright` does all of this.';

/** Imports of finished reports (API.md): each becomes one finished run, or one more part of a running one. */
export const testResultsImportRoutes = defineRoutes([
  {
    method: 'post',
    path: '/{projectId}/imports/playwright',
    summary: 'Import the JSON written by Playwright’s `json` reporter as a finished run',
    description: PLAYWRIGHT_IMPORT_ATTACHMENTS,
    tag: 'Test Runs',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ProjectOnly,
    query: ImportQuery,
    body: z
      .object({
        config: z.record(z.string(), z.unknown()),
        suites: z.array(z.unknown()),
        stats: z.looseObject({ startTime: z.iso.datetime({ offset: true }), duration: z.number() }),
      })
      .describe('The Playwright JSON report (`npx playwright test --reporter=json`)'),
    // The report's reader words its own refusals, in the terms of Playwright's report.
    rawInput: ['body'],
    responses: {
      201: {
        description: 'The finished run (running with finish=false)',
        schema: successEnvelope(RunSummary),
      },
      200: {
        description:
          'The run existed: the same report imported before, or a running run of this ciRunId that the report joined',
        schema: successEnvelope(RunSummary),
      },
      400: refused('VALIDATION_ERROR: not a report this import reads, or an invalid query parameter'),
      409: FINISHED,
      413: TOO_LARGE,
    },
  },
  {
    method: 'post',
    path: '/{projectId}/imports/junit',
    summary: 'Import JUnit XML (Playwright, jest-junit, pytest, Maven Surefire, gotestsum) as a finished run',
    tag: 'Test Runs',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ProjectOnly,
    query: ImportQuery,
    body: z.string().describe('JUnit XML'),
    bodyContentTypes: ['application/xml', 'text/xml'],
    rawInput: ['body'],
    responses: {
      201: {
        description: 'The finished run (running with finish=false)',
        schema: successEnvelope(RunSummary),
      },
      200: {
        description:
          'The run existed: the same report imported before, or a running run of this ciRunId that the report joined',
        schema: successEnvelope(RunSummary),
      },
      400: refused('VALIDATION_ERROR: not a report this import reads, or an invalid query parameter'),
      409: FINISHED,
      413: TOO_LARGE,
    },
  },
]);
