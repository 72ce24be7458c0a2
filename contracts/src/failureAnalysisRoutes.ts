import { defineRoutes, READER_ROLES } from './http';
import {
  CompareQuery,
  ErrorGroupPath,
  ErrorGroupQuery,
  ErrorGroupResponse,
  ErrorsQuery,
  ErrorsResponse,
  RunComparisonResponse,
  SuspectCommitsResponse,
  SuspectsQuery,
} from './failureAnalysis';
import { ProjectReadPath, TestCasePath, TestRunPath } from './testResultsReads';

const TAG = 'Failure analysis';

/** Error groups, run comparison and suspect commits (issue 31), served by the test-results service. */
export const failureAnalysisRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/errors',
    summary: 'Error groups: failed attempts grouped by error signature',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectReadPath,
    query: ErrorsQuery,
    responses: { 200: { description: 'OK', schema: ErrorsResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/errors/{signatureId}',
    summary: 'One error group, with the tests and runs it hit',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: ErrorGroupPath,
    query: ErrorGroupQuery,
    responses: { 200: { description: 'OK', schema: ErrorGroupResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/test-runs/{runId}/compare',
    summary: 'What changed between a run and its base',
    description:
      "base names the run to compare with; baseBranch, the latest finished run on that branch that started before this one; neither, the run's own base branch. A run without a base answers 200 with base null and noBaseReason.",
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: TestRunPath,
    query: CompareQuery,
    responses: { 200: { description: 'OK', schema: RunComparisonResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/test-cases/{caseId}/suspect-commits',
    summary: "A new failure's last passing run, first failing run and the runs between, with their commits",
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: TestCasePath,
    query: SuspectsQuery,
    responses: { 200: { description: 'OK', schema: SuspectCommitsResponse } },
  },
]);
