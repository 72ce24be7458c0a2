import { ErrorEnvelope } from './envelope';
import { ADMIN_ROLES, defineRoutes, READER_ROLES, WRITER_ROLES } from './http';
import { GateRules } from './gates';
import {
  CreateQuarantineRequest,
  ExtendQuarantineRequest,
  GateRulesResponse,
  LiftQuarantineRequest,
  QuarantineListQuery,
  QuarantineListResponse,
  QuarantinePath,
  QuarantineResponse,
  QuarantinedTestsResponse,
  QuarantinePolicyResponse,
  RunGateResponse,
} from './quarantine';
import { ProjectReadPath, TestRunPath } from './testResultsReads';
import { QuarantinePolicy } from './quarantineEvents';

const QUARANTINE = 'Quarantine';
const GATES = 'Quality Gates';
const refused = (description: string) => ({ description, schema: ErrorEnvelope });
const INVALID = refused(
  'VALIDATION_ERROR: a parameter or the body is invalid; the message names each problem',
);
const NO_QUARANTINE = refused('NOT_FOUND: no such quarantine in this project');
const ENDED = refused('CONFLICT: the quarantine has ended (lifted, or expired): quarantine the test again');

/** Quarantine (issue 32), served by the test-results service: members and above write, viewers read. */
export const quarantineRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/quarantines',
    summary: "The project's quarantines: active (default), expired, lifted or all; by owner; expiring soon",
    tag: QUARANTINE,
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectReadPath,
    query: QuarantineListQuery,
    responses: { 200: { description: 'Soonest expiry first', schema: QuarantineListResponse }, 400: INVALID },
  },
  {
    method: 'post',
    path: '/{projectId}/quarantines',
    summary: 'Quarantine a test for its known failures, with a reason, an owner and an expiry',
    description: [
      'A failure of the test whose error signature is one of the quarantine’s gets the verdict `quarantined` and does not fail the gate; a failure with any other signature is judged as usual, and the run says the quarantine would have masked it.',
      '400 VALIDATION_ERROR: expiry in the past or more than 90 days ahead, an owner who is not a member, no signature to forgive.',
      '404 TEST_CASE_NOT_FOUND: the project has no such test. 409 CONFLICT: the test (on this platform) is quarantined already.',
    ].join('\n\n'),
    tag: QUARANTINE,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ProjectReadPath,
    body: CreateQuarantineRequest,
    links: {
      getQuarantine: {
        to: 'get /{projectId}/quarantines/{quarantineId}',
        parameters: { quarantineId: '$response.body#/data/id' },
      },
      extend: {
        to: 'post /{projectId}/quarantines/{quarantineId}/extend',
        parameters: { quarantineId: '$response.body#/data/id' },
      },
      lift: {
        to: 'post /{projectId}/quarantines/{quarantineId}/lift',
        parameters: { quarantineId: '$response.body#/data/id' },
      },
    },
    responses: {
      201: { description: 'Quarantined', schema: QuarantineResponse },
      400: INVALID,
      404: refused('TEST_CASE_NOT_FOUND: the project has no such test'),
      409: refused('CONFLICT: the test is quarantined already on this platform'),
    },
  },
  {
    method: 'get',
    path: '/{projectId}/quarantined-tests',
    summary: 'Every test quarantined now, with the signatures each forgives (what reporters enforce)',
    description:
      'Not paginated: the reporters fetch it when a run begins and keep a copy for when Verdict cannot be reached.',
    tag: QUARANTINE,
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectReadPath,
    responses: { 200: { description: 'OK', schema: QuarantinedTestsResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/quarantines/{quarantineId}',
    summary: 'One quarantine with its evidence',
    tag: QUARANTINE,
    security: 'bearer',
    roles: READER_ROLES,
    params: QuarantinePath,
    responses: { 200: { description: 'OK', schema: QuarantineResponse }, 404: NO_QUARANTINE },
  },
  {
    method: 'post',
    path: '/{projectId}/quarantines/{quarantineId}/extend',
    summary: 'Move an active quarantine’s expiry later (at most 90 days from now)',
    tag: QUARANTINE,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: QuarantinePath,
    body: ExtendQuarantineRequest,
    links: {
      lift: { to: 'post /{projectId}/quarantines/{quarantineId}/lift', parameters: {} },
    },
    responses: {
      200: { description: 'Extended', schema: QuarantineResponse },
      400: INVALID,
      404: NO_QUARANTINE,
      409: ENDED,
    },
  },
  {
    method: 'post',
    path: '/{projectId}/quarantines/{quarantineId}/lift',
    summary: 'End an active quarantine: the test’s failures count again',
    tag: QUARANTINE,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: QuarantinePath,
    body: LiftQuarantineRequest,
    responses: {
      200: { description: 'Lifted', schema: QuarantineResponse },
      400: INVALID,
      404: NO_QUARANTINE,
      409: ENDED,
    },
  },
  {
    method: 'get',
    path: '/{projectId}/quarantine-policy',
    summary: "The project's auto-quarantine policy (off until set)",
    tag: QUARANTINE,
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectReadPath,
    responses: { 200: { description: 'OK', schema: QuarantinePolicyResponse } },
  },
  {
    method: 'put',
    path: '/{projectId}/quarantine-policy',
    summary: 'Set the auto-quarantine policy: flaky tests on the default branch quarantined by themselves',
    description:
      'Judged when a run on the default branch finishes, for the tests flaky in it. A test whose automatic quarantine a person lifted is left alone for 30 days. 400 VALIDATION_ERROR: a bad field, an owner who is not a member.',
    tag: QUARANTINE,
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ProjectReadPath,
    body: QuarantinePolicy,
    responses: { 200: { description: 'Set', schema: QuarantinePolicyResponse }, 400: INVALID },
  },
]);

/** Quality gates (issue 32), served by the test-results service: owners and admins set the rules. */
export const gateRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/gate-rules',
    summary: "The project's quality gate rules (none set: an empty object, and runs finish without a gate)",
    tag: GATES,
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectReadPath,
    responses: { 200: { description: 'OK', schema: GateRulesResponse } },
  },
  {
    method: 'put',
    path: '/{projectId}/gate-rules',
    summary: 'Set the rules runs are judged by when they finish; an empty object removes the gate',
    description:
      'A run is judged once, when it (its last shard) finishes: a run finished before the rules changed keeps its result.',
    tag: GATES,
    security: 'bearer',
    roles: ADMIN_ROLES,
    params: ProjectReadPath,
    body: GateRules,
    responses: { 200: { description: 'Set', schema: GateRulesResponse }, 400: INVALID },
  },
  {
    method: 'get',
    path: '/{projectId}/test-runs/{runId}/gate',
    summary: "A run's quality gate: pending until it finishes, then passed or failed with each rule",
    tag: GATES,
    security: 'bearer',
    roles: READER_ROLES,
    params: TestRunPath,
    responses: {
      200: { description: 'OK', schema: RunGateResponse },
      404: refused('TEST_RUN_NOT_FOUND: no such run in this project'),
    },
  },
]);
