import { z } from 'zod';
import { successEnvelope } from './envelope';
import type { RouteSpec } from './http';
import {
  AddCoverageRequest,
  AddResultsRequest,
  AddResultsResponse,
  ArtifactSummary,
  FinishRunRequest,
  RunSummary,
  StartRunRequest,
} from './testResultsIngest';
import { CoverageReport } from './testResultsEvents';

export const RunPath = z.object({ projectId: z.string().min(1), runId: z.string().min(1) });
const ProjectOnly = z.object({ projectId: z.string().min(1) });

/** Ingest of automated runs (API.md, "Ingest — automated runs"), served by the test-results service. */
export const testResultsIngestRoutes: RouteSpec[] = [
  {
    method: 'post',
    path: '/{projectId}/test-runs',
    summary: 'Start a run; shards sending the same ciRunId join one run (201 created, 200 joined)',
    tag: 'Test Runs',
    security: 'bearer',
    params: ProjectOnly,
    body: StartRunRequest,
    responses: {
      201: { description: 'The run was created', schema: successEnvelope(RunSummary) },
      200: {
        description: 'The run with this ciRunId already existed: joined',
        schema: successEnvelope(RunSummary),
      },
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
    params: RunPath,
    body: AddResultsRequest,
    bodyContentTypes: ['application/json', 'application/x-ndjson'],
    responses: { 202: { description: 'Durably recorded', schema: successEnvelope(AddResultsResponse) } },
  },
  {
    method: 'post',
    path: '/{projectId}/test-runs/{runId}/artifacts',
    summary: 'Upload an artifact (multipart: `file`, `name`, `contentType`, optional `resultRef`)',
    tag: 'Test Runs',
    security: 'bearer',
    params: RunPath,
    bodyContentTypes: ['multipart/form-data'],
    body: z.object({
      file: z.string(),
      name: z.string(),
      contentType: z.string(),
      resultRef: z.string().optional(),
    }),
    responses: { 201: { description: 'Stored', schema: successEnvelope(ArtifactSummary) } },
  },
  {
    method: 'post',
    path: '/{projectId}/test-runs/{runId}/coverage',
    summary: 'Add the run’s code coverage',
    tag: 'Test Runs',
    security: 'bearer',
    params: RunPath,
    body: AddCoverageRequest,
    responses: { 200: { description: 'Recorded', schema: successEnvelope(CoverageReport) } },
  },
  {
    method: 'post',
    path: '/{projectId}/test-runs/{runId}/finish',
    summary: 'Finish a run (with shards, once every shard has finished); retrying is harmless',
    tag: 'Test Runs',
    security: 'bearer',
    params: RunPath,
    body: FinishRunRequest,
    responses: { 200: { description: 'The run', schema: successEnvelope(RunSummary) } },
  },
];

/** Where an import lands: the same fields as a run's start, given as query parameters. */
export const ImportQuery = z.object({
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
});
export type ImportQuery = z.infer<typeof ImportQuery>;

/** Imports of finished reports (API.md): each becomes one finished run. */
export const testResultsImportRoutes: RouteSpec[] = [
  {
    method: 'post',
    path: '/{projectId}/imports/playwright',
    summary: 'Import the JSON written by Playwright’s `json` reporter as a finished run',
    tag: 'Test Runs',
    security: 'bearer',
    params: ProjectOnly,
    query: ImportQuery,
    body: z.record(z.string(), z.unknown()).describe('The Playwright JSON report'),
    responses: {
      201: { description: 'The finished run', schema: successEnvelope(RunSummary) },
      200: {
        description: 'The same report was imported before: its run',
        schema: successEnvelope(RunSummary),
      },
    },
  },
  {
    method: 'post',
    path: '/{projectId}/imports/junit',
    summary: 'Import JUnit XML (Playwright, jest-junit, pytest, Maven Surefire, gotestsum) as a finished run',
    tag: 'Test Runs',
    security: 'bearer',
    params: ProjectOnly,
    query: ImportQuery,
    body: z.string().describe('JUnit XML'),
    bodyContentTypes: ['application/xml', 'text/xml'],
    responses: {
      201: { description: 'The finished run', schema: successEnvelope(RunSummary) },
      200: {
        description: 'The same report was imported before: its run',
        schema: successEnvelope(RunSummary),
      },
    },
  },
];
