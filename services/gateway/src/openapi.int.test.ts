import { listExpressRoutes } from '@verdict/platform';
import { CLUSTERS, type GatewayCluster, type RunningGateway } from './testing';

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown>; operationId: string }>>;
}

describe('the OpenAPI document', () => {
  let cluster: GatewayCluster;
  let gateway: RunningGateway;
  let document: Document;

  beforeAll(async () => {
    const embedded = CLUSTERS[0];
    if (!embedded) throw new Error('the embedded cluster is missing');
    cluster = await embedded[1]();
    gateway = await cluster.replica();
    document = (await (await fetch(`${gateway.url}/api/public/v1/openapi.json`)).json()) as Document;
  });
  afterAll(() => cluster.close());

  it('when fetched under either prefix, then it is the same OpenAPI 3.1 document, open without a token', async () => {
    expect(document.openapi).toBe('3.1.0');
    const other = await fetch(`${gateway.url}/api/v1/public/openapi.json`);
    expect(other.status).toBe(200);
    expect(await other.json()).toEqual(document);
  });

  it('when a route exists in the app, then the document lists it with its method', () => {
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => ({ method, path })),
    );
    const routes = listExpressRoutes(gateway.app);
    // The walk must see the routers' routes, or this test could not fail.
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'get', path: '/{projectId}/token-info' },
        { method: 'delete', path: '/tokens/{tokenId}' },
      ]),
    );
    const operational = new Set(['/healthz', '/readyz', '/metrics', '/docs', '/openapi.json']);
    const missing = routes.filter(
      (route) =>
        !operational.has(route.path) &&
        !route.path.endsWith('/openapi.json') &&
        !documented.some((d) => d.method === route.method && d.path.endsWith(route.path)),
    );
    expect(missing).toEqual([]);
  });

  it('when the document lists an operation, then it has a unique id and its responses', () => {
    const ids = Object.values(document.paths).flatMap((operations) =>
      Object.values(operations).map((o) => o.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations))
        expect(Object.keys(operation.responses).length).toBeGreaterThan(1);
    }
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/public/v1/{projectId}/token-info',
        '/admin/v1/tokens',
        '/admin/v1/tokens/{tokenId}',
      ]),
    );
  });

  it('when /docs is opened, then it serves the human docs page and its assets', async () => {
    const page = await fetch(`${gateway.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/api/public/v1/openapi.json');
    expect((await fetch(`${gateway.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
  });
});
