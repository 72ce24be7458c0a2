import { setImmediate as nextTick } from 'node:timers/promises';
import { Router, type Express } from 'express';
import pino from 'pino';
import request from 'supertest';
import { z } from 'zod';
import { defineRoutes } from '@verdict/contracts';
import { ConflictError, NotFoundError, RateLimitError, ValidationError } from '../errors';
import type { Logger } from '../logging';
import { createHttpApp, type HttpAppOptions } from './app';
import { bindRoutes, registerRoutes } from './bindRoutes';
import { parseStorableJson, storable } from './storable';
import { toErrorResponse } from './errors';
import { sendCreated, sendData, sendList } from './respond';
import { parseBody, parseParams, parseQuery, rejectRepeatedParams } from './validate';

type LogLine = Record<string, unknown> & { level: number; msg: string };

/** The line as written, before parsing (which keeps only the last of two equal keys). */
const rawText = new WeakMap<LogLine, string>();

/** A logger whose lines the test can read. */
function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        const parsed = JSON.parse(line) as LogLine;
        rawText.set(parsed, line);
        lines.push(parsed);
      },
    },
  );
  return { logger, lines };
}

/** A service with one route per behaviour under test, finished like a real one. */
function buildApp(overrides: Partial<HttpAppOptions> = {}): { app: Express; lines: LogLine[] } {
  const { logger, lines } = capturingLogger();
  const { app, finish } = createHttpApp({ logger, service: 'test', bodyLimit: '1kb', ...overrides });

  app.get('/things/:id', (req, res) => {
    const { id } = parseParams(z.object({ id: z.string().regex(/^t-\d+$/) }), req);
    sendData(res, { id });
  });
  app.get('/things', (req, res) => {
    const query = parseQuery(
      z.object({
        page: z.coerce.number().int().min(1).default(1),
        limit: z.coerce.number().int().min(1).max(100).default(20),
      }),
      req,
    );
    sendList(res, [{ id: 't-1' }], {
      page: query.page,
      limit: query.limit,
      total: 1,
      hasNext: false,
      hasPrev: false,
    });
  });
  app.get('/tags', (req, res) => {
    sendData(res, parseQuery(z.object({ tag: z.array(z.string()) }), req, { allowRepeated: ['tag'] }));
  });
  app.get('/named', (req, res) => {
    rejectRepeatedParams(req, ['runId']);
    sendData(res, { other: req.query.other });
  });
  app.get('/bundle', (req, res) => {
    sendData(res, parseQuery(z.strictObject({ runId: z.string().optional() }), req));
  });
  app.post('/things', (req, res) => {
    const body = parseBody(
      z.object({ name: z.string().min(1), tags: z.array(z.string()).max(2).optional() }),
      req,
    );
    sendCreated(res, { id: 't-2', ...body }, '/things/t-2');
  });
  app.get('/fail/not-found', () => {
    throw new NotFoundError('Run r-1 not found', 'TEST_RUN_NOT_FOUND');
  });
  app.get('/fail/conflict', async () => {
    throw new ConflictError('Run already finished', 'RUN_FINISHED');
  });
  app.get('/fail/rate-limit', () => {
    throw new RateLimitError(30);
  });
  app.get('/fail/zod', () => {
    z.object({ when: z.iso.datetime() }).parse({ when: 'yesterday' });
  });
  app.get('/fail/unexpected', async () => {
    throw new Error('database password is hunter2');
  });

  finish(app);
  return { app, lines };
}

/** Waits for a log line written when the response closed, which may come just after the client has it. */
async function logLine(lines: LogLine[], predicate: (line: LogLine) => boolean): Promise<LogLine> {
  for (let turn = 0; turn < 100; turn += 1) {
    const found = lines.find(predicate);
    if (found) return found;
    await nextTick();
  }
  throw new Error('expected log line was never written');
}

describe('operational endpoints', () => {
  it('when /healthz is called, then it answers 200 ok in the envelope', async () => {
    const response = await request(buildApp().app).get('/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { status: 'ok' } });
  });

  it('when every readiness check resolves, then /readyz answers 200 listing each check', async () => {
    const { app } = buildApp({ readiness: { store: async () => {}, kv: async () => {} } });
    const response = await request(app).get('/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: { status: 'ready', checks: { store: 'ok', kv: 'ok' } },
    });
  });

  it('when a readiness check fails, then /readyz answers 503 SERVICE_UNAVAILABLE naming only that check', async () => {
    const { app, lines } = buildApp({
      readiness: {
        store: async () => {},
        kv: async () => {
          throw new Error('connection refused');
        },
      },
    });
    const response = await request(app).get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body.success).toBe(false);
    expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(response.body.error.message).toContain('kv');
    expect(response.body.error.message).not.toContain('store');
    expect(lines.some((line) => line.msg === 'readiness check failed' && line.check === 'kv')).toBe(true);
  });

  it('when a readiness check never settles, then /readyz answers 503 naming it', async () => {
    const { app } = buildApp({
      readiness: { bus: () => new Promise<void>(() => {}) },
      readinessTimeoutMs: 20,
    });
    const response = await request(app).get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body.error).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('bus'),
    });
  });

  it('when /metrics is scraped, then it serves the duration histogram labelled by route pattern, not raw path', async () => {
    const { app } = buildApp();
    await request(app).get('/things/t-42');
    const response = await request(app).get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(response.text).toMatch(
      /http_request_duration_seconds_count\{[^}]*route="\/things\/:id"[^}]*status_code="200"/,
    );
    expect(response.text).not.toContain('t-42');
    expect(response.text).toContain('process_cpu_user_seconds_total');
  });
});

describe('request ids and access log', () => {
  it('when a sane X-Request-Id is sent, then it is echoed and logged', async () => {
    const { app, lines } = buildApp();
    const response = await request(app).get('/things/t-1').set('X-Request-Id', 'ci-build-7.shard-2');
    expect(response.headers['x-request-id']).toBe('ci-build-7.shard-2');
    const access = await logLine(lines, (line) => line.msg === 'request');
    expect(access.requestId).toBe('ci-build-7.shard-2');
    expect(rawText.get(access)?.match(/"requestId"/g)).toHaveLength(1);
  });

  it('when no or an unusable X-Request-Id is sent, then a fresh one is generated and echoed', async () => {
    const { app } = buildApp();
    const none = await request(app).get('/healthz');
    const junk = await request(app).get('/healthz').set('X-Request-Id', 'x'.repeat(500));
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(junk.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(junk.headers['x-request-id']).not.toBe(none.headers['x-request-id']);
  });

  it('when a request is served, then one info line has method, path, status and duration but no query, body or token', async () => {
    const { app, lines } = buildApp();
    await request(app)
      .post('/things?secret=query-value')
      .set('Authorization', 'Bearer svc_pat_supersecret')
      .send({ name: 'body-value' });
    const access = await logLine(lines, (line) => line.msg === 'request');
    expect(access).toMatchObject({ level: 30, method: 'POST', path: '/things', status: 201 });
    expect(typeof access.durationMs).toBe('number');
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain('query-value');
    expect(everything).not.toContain('body-value');
    expect(everything).not.toContain('supersecret');
  });

  it('when a response is sent, then X-Powered-By is absent', async () => {
    const response = await request(buildApp().app).get('/healthz');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });
});

describe('the error envelope', () => {
  it('when no route matches, then it answers 404 NOT_FOUND in the envelope', async () => {
    const response = await request(buildApp().app).get('/nowhere?x=1');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'No route for GET /nowhere' },
    });
  });

  it('when a path is served but not with the method asked (TRACE, DELETE), then it answers 405 METHOD_NOT_ALLOWED with Allow, also through a mounted router', async () => {
    const { logger } = capturingLogger();
    const { app, finish } = createHttpApp({ logger, service: 'test' });
    const api = Router();
    api.get('/:projectId/runs', (_req, res) => void res.json({}));
    api.post('/:projectId/runs', (_req, res) => void res.json({}));
    app.use('/api/v1', api);
    app.put('/settings', (_req, res) => void res.json({}));
    finish();

    for (const method of ['trace', 'delete'] as const) {
      const response = await request(app)[method]('/api/v1/p1/runs');
      expect({ method, status: response.status, allow: response.headers.allow }).toEqual({
        method,
        status: 405,
        allow: 'GET, HEAD, POST',
      });
      expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    }
    expect((await request(app).trace('/settings')).headers.allow).toBe('PUT');
    expect((await request(app).trace('/api/v1/p1/nothing-here')).status).toBe(404);
  });

  it('when the JSON body is malformed, then it answers 400 VALIDATION_ERROR', async () => {
    const response = await request(buildApp().app)
      .post('/things')
      .set('Content-Type', 'application/json')
      .send('{"name":');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: 'Malformed JSON body' },
    });
  });

  it.each(['null', '42', '"name"', 'true'])(
    'when the JSON body is %s (valid JSON, not an object), then 400 says the body must be an object',
    async (body) => {
      const response = await request(buildApp().app)
        .post('/things')
        .set('Content-Type', 'application/json')
        .send(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'body: must be a JSON object',
      });
    },
  );

  it('when the body exceeds the limit, then it answers 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await request(buildApp().app)
      .post('/things')
      .send({ name: 'x'.repeat(2048) });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body too large' },
    });
  });

  it('when the body has an unsupported charset, then it answers 400 VALIDATION_ERROR saying so (spec §7)', async () => {
    const response = await request(buildApp().app)
      .post('/things')
      .set('Content-Type', 'application/json; charset=latin1')
      .send('{"name":"a"}');
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'body: unsupported charset, send UTF-8',
    });
  });

  it('when the JSON body is an array where an object is expected, then 400 says it must be an object', async () => {
    const response = await request(buildApp().app).post('/things').send([1, 2]);
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'body: must be an object' });
  });

  it('when the body is not JSON at all, then it answers 400 VALIDATION_ERROR naming the content type (spec §7)', async () => {
    const response = await request(buildApp().app)
      .post('/things')
      .set('Content-Type', 'text/plain')
      .send('name=a');
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'body: must be JSON, sent with Content-Type: application/json',
    });
  });

  it('when a NotFoundError is thrown, then its specific code answers 404', async () => {
    const response = await request(buildApp().app).get('/fail/not-found');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'TEST_RUN_NOT_FOUND', message: 'Run r-1 not found' },
    });
  });

  it('when an async handler rejects with a ConflictError, then it answers 409 with its code', async () => {
    const response = await request(buildApp().app).get('/fail/conflict');
    expect(response.status).toBe(409);
    expect(response.body.error).toEqual({ code: 'RUN_FINISHED', message: 'Run already finished' });
  });

  it('when a RateLimitError is thrown, then it answers 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    const response = await request(buildApp().app).get('/fail/rate-limit');
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('30');
    expect(response.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('when an unexpected error is thrown, then it answers 500 INTERNAL_ERROR without details and logs the stack', async () => {
    const { app, lines } = buildApp();
    const response = await request(app).get('/fail/unexpected');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'Internal server error' },
    });
    expect(response.text).not.toContain('hunter2');
    expect(response.text).not.toContain('at ');
    const logged = await logLine(lines, (line) => line.msg === 'unexpected error');
    expect(JSON.stringify(logged.err)).toContain('http.unit.test.ts');
  });

  it('when a ZodError escapes a handler, then it answers 400 VALIDATION_ERROR naming the field', async () => {
    const response = await request(buildApp().app).get('/fail/zod');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.message).toMatch(/^when: /);
  });

  it('when a path parameter is not valid percent-encoding, then it answers 400, not 500', async () => {
    const response = await request(buildApp().app).get('/things/%E0%A4%A');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('request validation', () => {
  it('when a query parameter is out of range, then the message names it and the bound', async () => {
    const response = await request(buildApp().app).get('/things?limit=1000');
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'limit: must be at most 100' });
  });

  it('when several query parameters are invalid, then the message names each of them', async () => {
    const response = await request(buildApp().app).get('/things?page=0&limit=1.5');
    expect(response.body.error.message).toBe('page: must be at least 1; limit: must be an integer');
  });

  it('when a body field has the wrong type, then it gets one message, not also the bounds of the right type', () => {
    const schema = z.object({ events: z.array(z.string()).min(1).max(10) });
    const req = { body: { events: 'run.started' } } as unknown as Parameters<typeof parseBody>[1];
    expect(() => parseBody(schema, req)).toThrow(/^events: must be an array$/);
  });

  it('when a query parameter is sent twice, then it is rejected as repeated', async () => {
    const response = await request(buildApp().app).get('/things?limit=10&limit=20');
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe('limit: must not be sent more than once');
  });

  it('when a parameter is allowed to repeat, then the schema receives every value', async () => {
    const response = await request(buildApp().app).get('/tags?tag=a&tag=b');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ tag: ['a', 'b'] });
  });

  it('when rejectRepeatedParams is given names, then only those are checked', async () => {
    const { app } = buildApp();
    const named = await request(app).get('/named?runId=a&runId=b');
    expect(named.status).toBe(400);
    expect(named.body.error.message).toBe('runId: must not be sent more than once');
    const other = await request(app).get('/named?runId=a&other=1&other=2');
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual({ other: ['1', '2'] });
  });

  it('when a strict schema meets an unknown parameter, then the message names it', async () => {
    const response = await request(buildApp().app).get('/bundle?runId=r-1&format=json');
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe('format: is not allowed');
  });

  it('when a body field is missing or too long, then the message names the field path', async () => {
    const { app } = buildApp();
    const missing = await request(app).post('/things').send({});
    expect(missing.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'name: is required' });
    const tooMany = await request(app)
      .post('/things')
      .send({ name: 'a', tags: ['x', 'y', 'z'] });
    expect(tooMany.body.error.message).toBe('tags: must be at most 2 items');
  });

  it('when a path parameter does not match, then the message names it', async () => {
    const response = await request(buildApp().app).get('/things/nope');
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe('id: has an invalid format');
  });

  it('when a body is sent as application/*+json, then it is parsed', async () => {
    const response = await request(buildApp().app)
      .post('/things')
      .set('Content-Type', 'application/vnd.verdict+json')
      .send(JSON.stringify({ name: 'suffixed' }));
    expect(response.status).toBe(201);
    expect(response.body.data.name).toBe('suffixed');
  });
});

describe('success envelopes', () => {
  it('when a list is sent, then pagination sits beside data', async () => {
    const response = await request(buildApp().app).get('/things?page=1&limit=5');
    expect(response.body).toEqual({
      success: true,
      data: [{ id: 't-1' }],
      pagination: { page: 1, limit: 5, total: 1, hasNext: false, hasPrev: false },
    });
  });

  it('when a resource is created, then it answers 201 with data and Location', async () => {
    const response = await request(buildApp().app).post('/things').send({ name: 'n' });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/things/t-2');
    expect(response.body).toEqual({ success: true, data: { id: 't-2', name: 'n' } });
  });
});

describe('toErrorResponse', () => {
  it('when a ValidationError carries details, then only code and message reach the body', () => {
    const response = toErrorResponse(new ValidationError('page: must be at least 1', { secret: 'internal' }));
    expect(response).toEqual({
      status: 400,
      headers: {},
      body: { success: false, error: { code: 'VALIDATION_ERROR', message: 'page: must be at least 1' } },
      unexpected: false,
    });
  });

  it('when a non-Error value is thrown, then it is an unexpected 500', () => {
    const response = toErrorResponse('a string');
    expect(response.status).toBe(500);
    expect(response.unexpected).toBe(true);
  });
});

describe('characters PostgreSQL cannot store: NUL and lone surrogates', () => {
  /** An app whose POST /echo answers the body its route was given. */
  function echoApp() {
    const { logger } = capturingLogger();
    const { app, finish } = createHttpApp({ logger, service: 'test' });
    app.post('/echo', (req, res) => {
      res.json(req.body);
    });
    finish(app);
    return app;
  }

  it('when a JSON body holds NUL characters in strings or keys, then the route sees each as U+FFFD', async () => {
    const response = await request(echoApp())
      .post('/echo')
      .set('content-type', 'application/json')
      .send('{"stdout":["a\\u0000b"],"k\\u0000":{"n":1,"s":"\\\\u0000 is text"}}');
    expect(response.body).toEqual({ stdout: ['a\uFFFDb'], 'k\uFFFD': { n: 1, s: '\\u0000 is text' } });
  });

  it('when a JSON body holds a lone surrogate, then the route sees U+FFFD, and whole pairs are kept', async () => {
    const response = await request(echoApp())
      .post('/echo')
      .set('content-type', 'application/json')
      .send('{"a":"\\ud800","b":"x\\udc00y","c":"\\ud83d\\ude00","d":"\\ud55c"}');
    expect(response.body).toEqual({ a: '\uFFFD', b: 'x\uFFFDy', c: '\u{1F600}', d: '\uD55C' });
  });

  it('when a query parameter holds %00, then the route sees U+FFFD, and repeated parameters stay arrays', async () => {
    const { logger } = capturingLogger();
    const { app, finish } = createHttpApp({ logger, service: 'test' });
    app.get('/echo', (req, res) => {
      res.json(req.query);
    });
    finish(app);
    const response = await request(app).get('/echo?branch=a%00b&tag=x&tag=y%00&n[a]=1&%00=k');
    expect(response.body).toEqual({ branch: 'a\uFFFDb', tag: ['x', 'y\uFFFD'], 'n[a]': '1', '\uFFFD': 'k' });
    const plain = await request(app).get('/echo?branch=main&tag=x&tag=y');
    expect(plain.body).toEqual({ branch: 'main', tag: ['x', 'y'] });
    const none = await request(app).get('/echo');
    expect(none.status).toBe(200);
    expect(none.body).toEqual({});
  });

  it('when one JSON text is parsed (an NDJSON line), then its NULs and lone surrogates come out as U+FFFD', () => {
    expect(parseStorableJson('{"stderr":["\\u0000","\\udfff"]}')).toEqual({ stderr: ['\uFFFD', '\uFFFD'] });
    expect(parseStorableJson('{"n":1}')).toEqual({ n: 1 });
  });

  it('when a value is walked, then only NULs and lone surrogates change and other values are kept as they are', () => {
    expect(storable({ a: ['x\u0000y', 1, null, true], b: 'plain', '\ud800': '\ud83d\ude00' })).toEqual({
      '\uFFFD': '\u{1F600}',
      a: ['x\uFFFDy', 1, null, true],
      b: 'plain',
    });
  });
});

describe('declared routes', () => {
  function declaredApp(): Express {
    const { logger } = capturingLogger();
    const { app, finish } = createHttpApp({ logger, service: 'test' });
    const route = { tag: 'Test', security: 'none', responses: { 200: { description: 'OK' } } } as const;
    const routes = defineRoutes([
      { ...route, method: 'get', path: '/plain', summary: 'No query' },
      {
        ...route,
        method: 'get',
        path: '/paged',
        summary: 'A query',
        query: z.strictObject({ page: z.string().optional() }),
      },
    ]);
    registerRoutes(
      app as unknown as Router,
      bindRoutes(routes, { 'get /plain': () => ({}), 'get /paged': ({ query }) => query }),
    );
    finish(app);
    return app;
  }

  it('when a route declares no query parameters and one is sent, then 400 VALIDATION_ERROR names it', async () => {
    const response = await request(declaredApp()).get('/plain?startDate=2026-01-01');
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'startDate: is not allowed' });
    expect((await request(declaredApp()).get('/plain')).status).toBe(200);
  });

  it('when a route declares its query, then its handler gets the query validated by it', async () => {
    const response = await request(declaredApp()).get('/paged?page=2');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ page: '2' });
  });
});
