import { describeRequest } from './requestPath';

describe('classifying public API requests', () => {
  it.each([
    ['GET', '/p1/test-runs', 'p1', false, 'read'],
    ['HEAD', '/p1/test-runs/r1', 'p1', false, 'read'],
    ['POST', '/p1/test-runs', 'p1', true, 'ingest'],
    ['POST', '/p1/test-runs/r1/results', 'p1', true, 'ingest'],
    ['POST', '/p1/test-runs/r1/artifacts', 'p1', true, 'ingest'],
    ['POST', '/p1/test-runs/r1/coverage', 'p1', true, 'ingest'],
    ['POST', '/p1/test-runs/r1/finish', 'p1', true, 'ingest'],
    ['POST', '/p1/imports/playwright', 'p1', true, 'ingest'],
    ['POST', '/p1/imports/junit', 'p1', true, 'ingest'],
    ['POST', '/p1/manual-runs', 'p1', true, 'manual-run-creation'],
    ['POST', '/p1/reports', 'p1', true, 'pdf-generation'],
    ['POST', '/p1/webhooks', 'p1', true, 'webhook-write'],
    ['PATCH', '/p1/webhooks/wh-1', 'p1', true, 'webhook-write'],
    ['DELETE', '/p1/webhooks/wh-1', 'p1', true, 'webhook-write'],
    ['GET', '/p1/webhooks', 'p1', false, 'read'],
    ['PATCH', '/p1/manual-runs/RUN-1/test-cases/TC-1', 'p1', true, 'write'],
    ['POST', '/p1/manual-runs/RUN-1/clone', 'p1', true, 'write'],
    ['DELETE', '/p1/test-runs/r1', 'p1', true, 'write'],
    ['PATCH', '/p1/test-runs/r1/results', 'p1', true, 'write'],
    ['POST', '/p1/test-runs/r1/unknown', 'p1', true, 'write'],
    ['POST', '/P1/REPORTS/', 'P1', true, 'pdf-generation'],
    ['POST', '/p1/report%73', 'p1', true, 'pdf-generation'],
    ['post', '//p1//manual-runs', 'p1', true, 'manual-run-creation'],
    ['GET', '/openapi.json', null, false, 'read'],
    ['POST', '/p1', null, true, 'write'],
    ['GET', '/session/tokens', null, false, 'read'],
    ['POST', '/session/tokens', null, true, 'write'],
    ['DELETE', '/Session/tokens/t1', null, true, 'write'],
  ] as const)('when %s %s, then project %s, write %s, kind %s', (method, path, projectId, isWrite, kind) => {
    expect(describeRequest(method, path)).toEqual({ projectId, isWrite, kind });
  });

  it('when a segment is malformed percent-encoding, then it is classified as sent instead of failing', () => {
    expect(describeRequest('GET', '/p%ZZ/test-runs')).toEqual({
      projectId: 'p%ZZ',
      isWrite: false,
      kind: 'read',
    });
  });
});
