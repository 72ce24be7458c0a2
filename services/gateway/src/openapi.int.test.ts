import { adminRoutes, type RouteSpec } from '@verdict/contracts';
import { listExpressRoutes } from '@verdict/platform';
import { adminOpenApiDocument, openApiDocument, publicRoutes } from './app';
import { SERVICE_ROUTES } from './serviceRoutes';
import { CLUSTERS, type GatewayCluster, type RunningGateway } from './testing';

interface Operation {
  responses: Record<string, unknown>;
  operationId: string;
  security: Record<string, unknown>[];
}

interface Document {
  openapi: string;
  jsonSchemaDialect?: string;
  paths: Record<string, Record<string, Operation>>;
}

/** Served by the gateway, described in docs/api.md rather than as operations of either API. */
const UNDOCUMENTED = [
  // Spec §9: the retired context endpoint answers 404 to everyone.
  { method: 'get', path: '/{projectId}/context' },
  // The signed, time-limited artifact URLs that include=artifacts hands out (/downloads/…).
  { method: 'get', path: '/{key}' },
];

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ method, path, operation })),
  );

/** The public document with every service's routes, as the launchers mount them. */
const fullDocument = () =>
  openApiDocument({
    publicUrl: 'http://localhost',
    services: Object.entries(SERVICE_ROUTES).map(([name, routes]) => ({
      name,
      routes,
      target: { kind: 'http' as const, url: 'http://localhost' },
    })),
  }) as unknown as Document;

describe('the OpenAPI document', () => {
  let cluster: GatewayCluster;
  let gateway: RunningGateway;
  let document: Document;
  let adminDocument: Document;

  beforeAll(async () => {
    const embedded = CLUSTERS[0];
    if (!embedded) throw new Error('the embedded cluster is missing');
    cluster = await embedded[1]();
    gateway = await cluster.replica();
    document = (await (await fetch(`${gateway.url}/api/public/v1/openapi.json`)).json()) as Document;
    const admin = await fetch(`${gateway.url}/admin/v1/openapi.json`);
    expect(admin.status).toBe(200);
    adminDocument = (await admin.json()) as Document;
  });
  afterAll(() => cluster.close());

  it('when fetched under either prefix, then it is the same OpenAPI 3.1 document, open without a token', async () => {
    expect(document.openapi).toBe('3.1.0');
    const other = await fetch(`${gateway.url}/api/v1/public/openapi.json`);
    expect(other.status).toBe(200);
    expect(await other.json()).toEqual(document);
  });

  it("when the public document is read, then it describes the public API only: operations under /api/public/v1 that take a bearer token or the web session, the sign-in taking neither and issuing or revoking one's own tokens the session alone", () => {
    const operations = operationsOf(document);
    expect(operations.map(({ path }) => path)).toContain('/api/public/v1/{projectId}/token-info');
    const sessionOnly = [
      'post /api/public/v1/session/tokens',
      'delete /api/public/v1/session/tokens/{tokenId}',
    ];
    for (const { path, method, operation } of operations) {
      expect({ path, prefixed: path.startsWith('/api/public/v1/') }).toEqual({ path, prefixed: true });
      const signIn = method === 'post' && path === '/api/public/v1/session';
      expect({ path, method, security: operation.security }).toEqual({
        path,
        method,
        security: signIn
          ? []
          : sessionOnly.includes(`${method} ${path}`)
            ? [{ sessionCookie: [] }]
            : [{ bearerToken: [] }, { sessionCookie: [] }],
      });
    }
    expect(Object.keys(document.paths).filter((path) => /\/context$|downloads/.test(path))).toEqual([]);
  });

  it('when the admin document is read (without the key), then it describes the admin API only, under /admin/v1', () => {
    const operations = operationsOf(adminDocument);
    expect(operations.map(({ method, path }) => `${method} ${path}`)).toEqual(
      expect.arrayContaining([
        'get /admin/v1/dead-letters',
        'post /admin/v1/tokens',
        'delete /admin/v1/tokens/{tokenId}',
      ]),
    );
    for (const { path, operation } of operations) {
      expect({ path, security: operation.security }).toEqual({ path, security: [{ adminKey: [] }] });
    }
  });

  it('when Swagger UI reads either document, then it has no jsonSchemaDialect to warn about (3.1 default dialect)', () => {
    // Swagger UI shows "OpenAPI.jsonSchemaDialect field contains a value different from the default" in red
    // on top of /docs for any other value.
    for (const served of [document, adminDocument]) {
      expect(served.openapi).toBe('3.1.0');
      expect(served.jsonSchemaDialect ?? 'https://spec.openapis.org/oas/3.1/dialect/base').toBe(
        'https://spec.openapis.org/oas/3.1/dialect/base',
      );
    }
  });

  it('when a route exists in the app, then one of the documents lists it with its method', () => {
    const documented = [...operationsOf(document), ...operationsOf(adminDocument)];
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
        !UNDOCUMENTED.some((u) => u.method === route.method && u.path === route.path) &&
        !documented.some((d) => d.method === route.method && d.path.endsWith(route.path)),
    );
    expect(missing).toEqual([]);
  });

  it('when a document lists an operation, then it has a unique id and its responses', () => {
    for (const served of [document, adminDocument]) {
      const ids = operationsOf(served).map(({ operation }) => operation.operationId);
      expect(new Set(ids).size).toBe(ids.length);
      for (const { operation } of operationsOf(served))
        expect(Object.keys(operation.responses).length).toBeGreaterThan(1);
    }
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/public/v1/{projectId}/token-info']),
    );
  });

  it('when the public document is built with the services’ routes, then a run case’s evidence is attached by a multipart upload (201) and removed by a DELETE, as a case’s file is', () => {
    const full = fullDocument();
    const base = '/api/public/v1/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments';
    const upload = full.paths[base]?.post as
      (Operation & { requestBody?: { content: Record<string, unknown> } }) | undefined;
    expect(Object.keys(upload?.requestBody?.content ?? {})).toEqual(['multipart/form-data']);
    expect(upload?.responses).toHaveProperty('201');
    expect(full.paths[`${base}/{attachmentId}`]?.delete?.responses).toHaveProperty('200');
    const caseFile = '/api/public/v1/{projectId}/manual-test-cases/{caseId}/attachments/{attachmentId}';
    expect(full.paths[caseFile]?.delete?.responses).toEqual(
      expect.objectContaining({
        '200': expect.anything(),
        '403': expect.anything(),
        '404': expect.anything(),
      }),
    );
  });

  it('when the public document is built with the services’ routes, then what a create answers links to what takes it next: a run to its results and finish, a quarantine to extend and lift, a manual run to its first run case', () => {
    const full = fullDocument();
    const base = '/api/public/v1/{projectId}';
    const linksOf = (path: string, status: string) =>
      (
        full.paths[`${base}${path}`]?.post?.responses[status] as
          { links?: Record<string, unknown> } | undefined
      )?.links ?? {};
    const ids = new Set(operationsOf(full).map(({ operation }) => operation.operationId));
    const run = { projectId: '$request.path.projectId', runId: '$response.body#/data/id' };
    for (const status of ['200', '201']) {
      expect(linksOf('/test-runs', status)).toMatchObject({
        addResults: { operationId: 'postApiPublicV1ProjectIdTestRunsRunIdResults', parameters: run },
        finish: { operationId: 'postApiPublicV1ProjectIdTestRunsRunIdFinish', parameters: run },
      });
    }
    const quarantine = { projectId: '$request.path.projectId', quarantineId: '$response.body#/data/id' };
    expect(linksOf('/quarantines', '201')).toMatchObject({
      extend: {
        operationId: 'postApiPublicV1ProjectIdQuarantinesQuarantineIdExtend',
        parameters: quarantine,
      },
      lift: { operationId: 'postApiPublicV1ProjectIdQuarantinesQuarantineIdLift', parameters: quarantine },
    });
    expect(linksOf('/manual-runs', '201')).toMatchObject({
      updateRunCase: {
        operationId: 'patchApiPublicV1ProjectIdManualRunsRunIdTestCasesRunCaseId',
        parameters: { runId: '$response.body#/data/_id', runCaseId: '$response.body#/data/testCases/0/_id' },
      },
    });
    // Every link leads to an operation of the same document.
    const targets = operationsOf(full).flatMap(({ operation }) =>
      Object.values(operation.responses).flatMap((answer) =>
        Object.values((answer as { links?: Record<string, { operationId: string }> }).links ?? {}),
      ),
    );
    expect(targets.length).toBeGreaterThan(30);
    for (const target of targets) expect(ids).toContain(target.operationId);
  });

  it('when a route declares a link, then its document carries it on the route’s 2xx answers: no link of the API leads outside its document', () => {
    const mounts = Object.entries(SERVICE_ROUTES).map(([name, routes]) => ({
      name,
      routes,
      target: { kind: 'http' as const, url: 'http://localhost' },
    }));
    const pairs: Array<[readonly RouteSpec[], Document, string]> = [
      [publicRoutes(mounts), fullDocument(), '/api/public/v1'],
      [
        adminRoutes,
        adminOpenApiDocument({ publicUrl: 'http://localhost' }) as unknown as Document,
        '/admin/v1',
      ],
    ];
    let declared = 0;
    for (const [routes, served, prefix] of pairs) {
      for (const route of routes) {
        const answers = served.paths[`${prefix}${route.path}`]?.[route.method]?.responses ?? {};
        const carried = new Set(
          Object.entries(answers)
            .filter(([status]) => status.startsWith('2'))
            .flatMap(([, answer]) => Object.keys((answer as { links?: object }).links ?? {})),
        );
        for (const name of Object.keys(route.links ?? {})) {
          declared += 1;
          expect(`${route.method} ${route.path} → ${name}: ${carried.has(name)}`).toBe(
            `${route.method} ${route.path} → ${name}: true`,
          );
        }
      }
    }
    expect(declared).toBe(41);
  });

  it('when /docs is opened, then it serves the human docs page and its assets', async () => {
    const page = await fetch(`${gateway.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/api/public/v1/openapi.json');
    expect((await fetch(`${gateway.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
  });
});
