import { z } from 'zod';
import { successEnvelope } from './envelope';
import { defineRoutes, READER_ROLES, WRITER_ROLES } from './http';
import {
  CaseAttachmentPath,
  CaseAttachmentResponse,
  CaseHistoryResponse,
  CreateManualCaseRequest,
  CreateManualRunRequest,
  CreateReleaseRequest,
  CreateSessionRequest,
  CreateSuiteRequest,
  DeletedAttachmentResponse,
  ManualCasePath,
  ManualCaseResponse,
  ManualCasesQuery,
  ManualCasesResponse,
  ManualProjectPath,
  ManualRunCasePath,
  ManualRunCaseResponse,
  ManualRunPath,
  ManualRunResponse,
  ManualRunsQuery,
  ManualRunsResponse,
  ManualSuitePath,
  ManualSuiteResponse,
  ManualSuitesResponse,
  PageQuery,
  ReleasePath,
  RunCaseAttachmentPath,
  RunCaseAttachmentResponse,
  ReleaseResponse,
  ReleasesQuery,
  ReleasesResponse,
  SessionPath,
  SessionResponse,
  SessionsQuery,
  SessionsResponse,
  SuitesQuery,
  UpdateManualCaseRequest,
  UpdateReleaseRequest,
  UpdateRunCaseRequest,
  UpdateSessionRequest,
  UpdateSuiteRequest,
} from './manualTesting';

const TAG = 'Manual Tests';
const ok = (schema: z.ZodType) => ({ 200: { description: 'OK', schema } });
const created = (schema: z.ZodType) => ({ 201: { description: 'Created', schema } });
/**
 * A creation API.md states no status for answers 200: spec §4, "Unless stated otherwise, success is HTTP
 * 200 with the envelope". API.md states 201 for cases and runs only.
 */
const createdOk = (schema: z.ZodType) => ({ 200: { description: 'Created', schema } });

/** The case routes: the list of spec §4.3, create (API.md), get with history, update, history, attachments. */
export const manualCaseRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/manual-tests',
    summary: 'List manual test cases (filters, search, sorting; default limit 50, max 100)',
    description:
      'search matches title, description and caseId; tags is comma-separated and matches any; suiteId=null selects unassigned cases; sortBy caseId (default), title, createdAt, updatedAt, classification.* or automation.status.',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualProjectPath,
    query: ManualCasesQuery,
    responses: ok(ManualCasesResponse),
  },
  {
    method: 'post',
    path: '/{projectId}/manual-test-cases',
    summary: 'Create a manual test case (caseId TC-<n>, counted per project, never reused)',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualProjectPath,
    body: CreateManualCaseRequest,
    links: {
      getCase: {
        to: 'get /{projectId}/manual-test-cases/{caseId}',
        parameters: { caseId: '$response.body#/data/_id' },
      },
      updateCase: {
        to: 'patch /{projectId}/manual-test-cases/{caseId}',
        parameters: { caseId: '$response.body#/data/_id' },
      },
      caseHistory: {
        to: 'get /{projectId}/manual-test-cases/{caseId}/history',
        parameters: { caseId: '$response.body#/data/_id' },
      },
      attachToCase: {
        to: 'post /{projectId}/manual-test-cases/{caseId}/attachments',
        parameters: { caseId: '$response.body#/data/_id' },
      },
    },
    responses: created(ManualCaseResponse),
  },
  {
    method: 'get',
    path: '/{projectId}/manual-test-cases/{caseId}',
    summary: 'A manual test case by _id or TC-<n>, with comments, issues and change history',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualCasePath,
    responses: ok(ManualCaseResponse),
  },
  {
    method: 'patch',
    path: '/{projectId}/manual-test-cases/{caseId}',
    summary: 'Update a manual test case (only the fields to change; at least one)',
    description:
      'name is an alias of title; steps replace the steps completely, in the format of stepFormat (Classic or Gherkin); flags set automation.toBeAutomated, isFlaky and isMuted; comments are appended; issues are linked; tags is a comma-separated string or an array.',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualCasePath,
    body: UpdateManualCaseRequest,
    responses: ok(ManualCaseResponse),
  },
  {
    method: 'get',
    path: '/{projectId}/manual-test-cases/{caseId}/history',
    summary: 'The change history of a manual test case, newest first',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualCasePath,
    query: PageQuery,
    responses: ok(CaseHistoryResponse),
  },
  {
    method: 'post',
    path: '/{projectId}/manual-test-cases/{caseId}/attachments',
    summary: 'Attach a file to a manual test case (multipart: file, optional stepRef)',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualCasePath,
    bodyContentTypes: ['multipart/form-data'],
    rawInput: ['body'],
    body: z.object({
      file: z.string().meta({ format: 'binary' }).describe('The file; its name and type are kept'),
      stepRef: z.string().max(100).optional().describe('The step the file belongs to'),
    }),
    links: {
      removeAttachment: {
        to: 'delete /{projectId}/manual-test-cases/{caseId}/attachments/{attachmentId}',
        parameters: { attachmentId: '$response.body#/data/_id' },
      },
    },
    responses: createdOk(CaseAttachmentResponse),
  },
  {
    method: 'delete',
    path: '/{projectId}/manual-test-cases/{caseId}/attachments/{attachmentId}',
    summary: 'Remove a file from a manual test case; removing it again answers the same',
    description:
      'caseId is the case _id or its key TC-<n>. The file is deleted from the blob store and no longer listed (its signed URLs stop working); the case history keeps the removal (kind attachment-removed). An attachment the case never had is 404 NOT_FOUND.',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: CaseAttachmentPath,
    responses: ok(DeletedAttachmentResponse),
  },
]);

/** The suite routes of API.md: list, create, get, update (rename, describe, move), delete when empty. */
export const manualSuiteRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/manual-suites',
    summary: 'List manual suites (parentId selects the children of a suite; null the top level)',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualProjectPath,
    query: SuitesQuery,
    responses: ok(ManualSuitesResponse),
  },
  {
    method: 'post',
    path: '/{projectId}/manual-suites',
    summary: 'Create a manual suite, optionally inside another',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualProjectPath,
    body: CreateSuiteRequest,
    links: {
      getSuite: {
        to: 'get /{projectId}/manual-suites/{suiteId}',
        parameters: { suiteId: '$response.body#/data/_id' },
      },
      updateSuite: {
        to: 'patch /{projectId}/manual-suites/{suiteId}',
        parameters: { suiteId: '$response.body#/data/_id' },
      },
      deleteSuite: {
        to: 'delete /{projectId}/manual-suites/{suiteId}',
        parameters: { suiteId: '$response.body#/data/_id' },
      },
    },
    responses: createdOk(ManualSuiteResponse),
  },
  {
    method: 'get',
    path: '/{projectId}/manual-suites/{suiteId}',
    summary: 'A manual suite',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualSuitePath,
    responses: ok(ManualSuiteResponse),
  },
  {
    method: 'patch',
    path: '/{projectId}/manual-suites/{suiteId}',
    summary: 'Rename, describe or move a manual suite',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualSuitePath,
    body: UpdateSuiteRequest,
    responses: ok(ManualSuiteResponse),
  },
  {
    method: 'delete',
    path: '/{projectId}/manual-suites/{suiteId}',
    summary: 'Delete an empty manual suite (409 CONFLICT while it holds cases or suites)',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualSuitePath,
    responses: ok(successEnvelope(z.object({ _id: z.string(), deleted: z.literal(true) }))),
  },
]);

/**
 * The run routes: create (API.md), list, get (spec §4.4), update a run case (spec §4.4), and its evidence
 * (attach, remove).
 */
export const manualRunRoutes = defineRoutes([
  {
    method: 'post',
    path: '/{projectId}/manual-runs',
    summary:
      'Create a manual run (RUN-<n>) from cases and/or suites (neither: every case); 10 a minute per token',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualProjectPath,
    body: CreateManualRunRequest,
    links: {
      getManualRun: {
        to: 'get /{projectId}/manual-runs/{runId}',
        parameters: { runId: '$response.body#/data/_id' },
      },
      updateRunCase: {
        to: 'patch /{projectId}/manual-runs/{runId}/test-cases/{runCaseId}',
        parameters: { runId: '$response.body#/data/_id', runCaseId: '$response.body#/data/testCases/0/_id' },
      },
      attachToRunCase: {
        to: 'post /{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments',
        parameters: { runId: '$response.body#/data/_id', runCaseId: '$response.body#/data/testCases/0/_id' },
      },
    },
    responses: created(ManualRunResponse),
  },
  {
    method: 'get',
    path: '/{projectId}/manual-runs',
    summary: 'List manual runs, newest first',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualProjectPath,
    query: ManualRunsQuery,
    responses: ok(ManualRunsResponse),
  },
  {
    method: 'get',
    path: '/{projectId}/manual-runs/{runId}',
    summary: 'A manual run by _id or RUN-<n>, with its cases and progress',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualRunPath,
    responses: ok(ManualRunResponse),
  },
  {
    method: 'patch',
    path: '/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}',
    summary: 'Update a run case (quick verdict or detailed result, never both)',
    description:
      'runCaseId is the run-case reference, the case key TC-<n> or the case _id. Quick verdict: assigneeUserId (user _id or e-mail; null unassigns), result or status (alias), elapsed (seconds, >= 0). Detailed result: comment, linkedIssues, stepResults. Every update is kept in the run case history.',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualRunCasePath,
    body: UpdateRunCaseRequest,
    responses: ok(ManualRunCaseResponse),
  },
  {
    method: 'post',
    path: '/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments',
    summary: 'Attach evidence (a screenshot, a log) to a run case (multipart: file, optional stepRef)',
    description:
      'runCaseId is the run-case reference, the case key TC-<n> or the case _id. The multipart field file is stored in the blob store (at most VERDICT_ARTIFACT_MAX_BYTES, else 413 PAYLOAD_TOO_LARGE); stepRef names the step the file shows. 201 with the attachment and a signed blobUrl (valid 15 minutes; every read of the run signs a fresh one). The run case history records it.',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualRunCasePath,
    bodyContentTypes: ['multipart/form-data'],
    rawInput: ['body'],
    body: z.object({
      file: z.string().meta({ format: 'binary' }).describe('The file; its name and type are kept'),
      stepRef: z.string().max(100).optional().describe('The step the file belongs to'),
    }),
    links: {
      removeEvidence: {
        to: 'delete /{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments/{attachmentId}',
        parameters: { attachmentId: '$response.body#/data/_id' },
      },
    },
    responses: created(RunCaseAttachmentResponse),
  },
  {
    method: 'delete',
    path: '/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments/{attachmentId}',
    summary: 'Remove evidence from a run case; removing it again answers the same',
    description:
      'The file is deleted from the blob store and no longer listed; the run case history keeps the removal. An attachment the run case never had is 404 NOT_FOUND.',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: RunCaseAttachmentPath,
    responses: ok(DeletedAttachmentResponse),
  },
]);

/** The release routes: list, create (API.md), get with progress (spec §4.5), update. */
export const manualReleaseRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/releases',
    summary: 'List releases (milestones) with their progress',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualProjectPath,
    query: ReleasesQuery,
    responses: ok(ReleasesResponse),
  },
  {
    method: 'post',
    path: '/{projectId}/releases',
    summary: 'Create a release (MS-<n>)',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualProjectPath,
    body: CreateReleaseRequest,
    links: {
      getRelease: {
        to: 'get /{projectId}/releases/{releaseId}',
        parameters: { releaseId: '$response.body#/data/_id' },
      },
      updateRelease: {
        to: 'patch /{projectId}/releases/{releaseId}',
        parameters: { releaseId: '$response.body#/data/_id' },
      },
    },
    responses: createdOk(ReleaseResponse),
  },
  {
    method: 'get',
    path: '/{projectId}/releases/{releaseId}',
    summary: 'A release by _id or MS-<n>, with progress over its runs',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ReleasePath,
    responses: ok(ReleaseResponse),
  },
  {
    method: 'patch',
    path: '/{projectId}/releases/{releaseId}',
    summary: 'Update a release',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ReleasePath,
    body: UpdateReleaseRequest,
    responses: ok(ReleaseResponse),
  },
]);

/** The exploratory session routes of API.md: list, create, get, update. */
export const manualSessionRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/sessions',
    summary: 'List exploratory sessions',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ManualProjectPath,
    query: SessionsQuery,
    responses: ok(SessionsResponse),
  },
  {
    method: 'post',
    path: '/{projectId}/sessions',
    summary: 'Create an exploratory session',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ManualProjectPath,
    body: CreateSessionRequest,
    links: {
      getSession: {
        to: 'get /{projectId}/sessions/{sessionId}',
        parameters: { sessionId: '$response.body#/data/_id' },
      },
      updateSession: {
        to: 'patch /{projectId}/sessions/{sessionId}',
        parameters: { sessionId: '$response.body#/data/_id' },
      },
    },
    responses: createdOk(SessionResponse),
  },
  {
    method: 'get',
    path: '/{projectId}/sessions/{sessionId}',
    summary: 'An exploratory session',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: SessionPath,
    responses: ok(SessionResponse),
  },
  {
    method: 'patch',
    path: '/{projectId}/sessions/{sessionId}',
    summary: 'Update an exploratory session',
    tag: TAG,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: SessionPath,
    body: UpdateSessionRequest,
    responses: ok(SessionResponse),
  },
]);

/** Every route of the manual-testing service (spec §4.3–§4.5, API.md "Manual testing"). */
export const manualTestingRoutes = [
  ...manualCaseRoutes,
  ...manualSuiteRoutes,
  ...manualRunRoutes,
  ...manualReleaseRoutes,
  ...manualSessionRoutes,
] as const;
