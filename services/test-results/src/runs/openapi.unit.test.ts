import { testResultsIngestRoutes } from '@verdict/contracts';
import { buildOpenApiDocument } from '@verdict/platform';

interface Operation {
  responses: Record<string, unknown>;
  requestBody: { content: Record<string, { schema: unknown }> };
}

describe('the OpenAPI document of the ingest routes', () => {
  const document = buildOpenApiDocument({
    title: 'ingest',
    version: '1',
    serverUrl: 'http://localhost',
    groups: [{ prefixes: ['/api/public/v1'], routes: testResultsIngestRoutes }],
  }) as unknown as { paths: Record<string, Record<string, Operation>>; components: unknown };
  const operation = (path: string) => document.paths[`/api/public/v1${path}`]?.post;

  it('when results are added, then the body shows a result item, not an empty schema', () => {
    const body = operation('/{projectId}/test-runs/{runId}/results')?.requestBody.content['application/json'];
    const text = JSON.stringify([body?.schema, document.components]);
    for (const field of ['titlePath', 'attempt', 'durationMs', 'startedAt', 'steps']) {
      expect(text).toContain(`"${field}"`);
    }
  });

  it.each([
    ['/{projectId}/test-runs/{runId}/results', ['202', '400', '404', '409', '413']],
    ['/{projectId}/test-runs/{runId}/artifacts', ['201', '400', '404', '409', '413']],
    ['/{projectId}/test-runs/{runId}/coverage', ['200', '400', '404', '409']],
    ['/{projectId}/test-runs/{runId}/finish', ['200', '400', '404', '409']],
  ])('when %s is documented, then so are the refusals it answers', (path, statuses) => {
    expect(Object.keys(operation(path)?.responses ?? {})).toEqual(expect.arrayContaining(statuses));
  });
});
