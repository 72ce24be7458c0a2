import { defineRoutes, READER_ROLES } from './http';
import {
  ProjectReadPath,
  SpecsQuery,
  SpecsResponse,
  HISTORY_PARAMS,
  TestCaseDetailQuery,
  TestCaseDetailResponse,
  TestCaseHistoryQuery,
  TestCaseHistoryResponse,
  TestCasePath,
  TestRunDetailQuery,
  TestRunDetailResponse,
  TestRunPath,
  TestRunsQuery,
  TestRunsResponse,
} from './testResultsReads';

const TAG_RUNS = 'Test Runs';
const TAG_CASES = 'Test Cases';

/** Reads of automated data (spec §4.10, API.md), served by the test-results service. */
export const testResultsReadRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/test-runs',
    summary: 'List test runs, newest first',
    tag: TAG_RUNS,
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectReadPath,
    query: TestRunsQuery,
    responses: { 200: { description: 'OK', schema: TestRunsResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/test-runs/{runId}',
    summary: 'A test run, with the sections named in include',
    description:
      'include: errors, coverage, specs, artifacts or all. artifacts is null without urls; each urls entry is an artifact id, an artifact name (the oldest artifact of that name) or a URL whose last segment is one of those, and maps to a signed download or null.',
    tag: TAG_RUNS,
    security: 'bearer',
    roles: READER_ROLES,
    params: TestRunPath,
    query: TestRunDetailQuery,
    responses: { 200: { description: 'OK', schema: TestRunDetailResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/test-cases/{caseId}',
    summary: 'A test case, with its history when include names it',
    description: 'historyPage, historyLimit and historyStatus are read only with include=history or all.',
    tag: TAG_CASES,
    security: 'bearer',
    roles: READER_ROLES,
    params: TestCasePath,
    query: TestCaseDetailQuery,
    repeatableQuery: HISTORY_PARAMS,
    responses: { 200: { description: 'OK', schema: TestCaseDetailResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/test-cases/{caseId}/history',
    summary: 'Past executions of a test case, newest first (offset and limit)',
    tag: TAG_CASES,
    security: 'bearer',
    roles: READER_ROLES,
    params: TestCasePath,
    query: TestCaseHistoryQuery,
    responses: { 200: { description: 'OK', schema: TestCaseHistoryResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/specs',
    summary: 'Spec files with their test counts and pass, fail and flaky rates',
    tag: 'Specs',
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectReadPath,
    query: SpecsQuery,
    responses: { 200: { description: 'OK', schema: SpecsResponse } },
  },
]);
