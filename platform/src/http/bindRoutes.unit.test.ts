import express, { Router } from 'express';
import request from 'supertest';
import { z } from 'zod';
import { ADMIN_ROLES, defineRoutes, READER_ROLES, WRITER_ROLES, type Role } from '@verdict/contracts';
import { ConflictError } from '../errors';
import { INTERNAL_IDENTITY_HEADER, requireInternalIdentity } from '../internalAuth/middleware';
import { mintInternalToken, type InternalIdentity } from '../internalAuth/token';
import { silentLogger } from '../logging';
import { createHttpApp } from './app';
import { bindRoutes, registerRoutes, type BoundRoute } from './bindRoutes';
import { reply } from './reply';

const SECRET = 'a-secret-of-thirty-two-characters!!';
const Path = z.object({ projectId: z.string().min(1), noteId: z.string().regex(/^n-\d+$/) });
const NewNote = z.strictObject({ text: z.string().min(1).max(20) });
const route = { tag: 'Notes', security: 'bearer', responses: { 200: { description: 'OK' } } } as const;

const notes = defineRoutes([
  {
    ...route,
    method: 'get',
    path: '/{projectId}/notes',
    summary: 'List',
    roles: READER_ROLES,
    params: z.object({ projectId: z.string() }),
    query: z.strictObject({ limit: z.string().regex(/^\d+$/).transform(Number).default(10) }),
  },
  {
    ...route,
    method: 'post',
    path: '/{projectId}/notes',
    summary: 'Create',
    roles: WRITER_ROLES,
    params: z.object({ projectId: z.string() }),
    body: NewNote,
  },
  {
    ...route,
    method: 'delete',
    path: '/{projectId}/notes/{noteId}',
    summary: 'Delete',
    roles: ADMIN_ROLES,
    params: Path,
  },
  {
    ...route,
    method: 'post',
    path: '/{projectId}/notes/{noteId}/close',
    summary: 'Close',
    roles: WRITER_ROLES,
    params: Path,
    body: z.strictObject({ reason: z.string().optional() }),
    bodyRequired: false,
  },
  {
    ...route,
    method: 'post',
    path: '/{projectId}/notes/import',
    summary: 'Import text',
    roles: WRITER_ROLES,
    params: z.object({ projectId: z.string() }),
    body: z.string(),
    bodyContentTypes: ['text/plain'],
    rawInput: ['body'],
  },
]);

function bound(): BoundRoute[] {
  return bindRoutes(notes, {
    'get /{projectId}/notes': ({ query }, ctx) =>
      reply.page(
        [{ limit: query.limit, actor: ctx.actor, role: ctx.role, correlationId: ctx.correlationId }],
        {
          page: 1,
          limit: query.limit,
          total: 1,
          hasNext: false,
          hasPrev: false,
        },
      ),
    'post /{projectId}/notes': ({ body }, { projectId }) =>
      reply.created({ projectId, text: body.text }, { location: `/${projectId}/notes/n-1` }),
    'delete /{projectId}/notes/{noteId}': ({ params }) => {
      if (params.noteId === 'n-9') throw new ConflictError('The note is pinned');
      return { id: params.noteId, deleted: true };
    },
    'post /{projectId}/notes/{noteId}/close': ({ body }) => ({ reason: body.reason ?? null }),
    'post /{projectId}/notes/import': {
      before: [express.text({ type: 'text/plain' })],
      handle: (_input, { req }) => reply.body('text/markdown; charset=utf-8', `# ${String(req.body)}`),
    },
  });
}

function app() {
  const { app: http, finish } = createHttpApp({ logger: silentLogger(), service: 'test' });
  const router = Router();
  router.use(requireInternalIdentity({ secret: SECRET }));
  registerRoutes(router, bound());
  http.use('/api', router);
  finish(http);
  return http;
}

const as = (role: Role, projectId = 'p1') => {
  const identity: InternalIdentity = {
    organizationId: 'o1',
    projectId,
    userId: `u-${role}`,
    role,
    scopes: ['public-api'],
    tokenId: 't1',
  };
  return { [INTERNAL_IDENTITY_HEADER]: mintInternalToken(identity, { secret: SECRET }) };
};

describe('bindRoutes', () => {
  it('when a declared route is called, then the handler gets validated, typed input and who calls, and its value is sent in the envelope', async () => {
    const response = await request(app())
      .get('/api/p1/notes?limit=5')
      .set(as('viewer'))
      .set('X-Request-Id', 'req-42');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: [{ limit: 5, actor: 'u-viewer', role: 'viewer', correlationId: 'req-42' }],
      pagination: { page: 1, limit: 5, total: 1, hasNext: false, hasPrev: false },
    });
  });

  it('when the request comes without the gateway’s identity, then 401 UNAUTHORIZED', async () => {
    const response = await request(app()).get('/api/p1/notes');
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('UNAUTHORIZED');
  });

  it('when the path names a project other than the caller’s, then 403 FORBIDDEN and the handler never runs', async () => {
    const response = await request(app()).post('/api/p2/notes').set(as('owner', 'p1')).send({ text: 'x' });
    expect(response.status).toBe(403);
    expect(response.body.error).toEqual({
      code: 'FORBIDDEN',
      message: 'The token is not scoped to this project',
    });
  });

  it.each([
    ['viewer', 'post', '/api/p1/notes', 'owner, admin or member'],
    ['member', 'delete', '/api/p1/notes/n-1', 'owner or admin'],
  ] as const)(
    'when a %s calls a route its role is not declared for, then 403 FORBIDDEN naming the roles it needs',
    async (role, method, path, needed) => {
      const response = await request(app())[method](path).set(as(role)).send({ text: 'x' });
      expect(response.status).toBe(403);
      expect(response.body.error).toEqual({
        code: 'FORBIDDEN',
        message: `The ${role} role cannot do this; it needs the ${needed} role`,
      });
    },
  );

  it('when a declared role calls, then it passes: an admin deletes', async () => {
    const response = await request(app()).delete('/api/p1/notes/n-1').set(as('admin'));
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ id: 'n-1', deleted: true });
  });

  it('when params, query or body break their declaration, then 400 VALIDATION_ERROR names the part', async () => {
    const badParam = await request(app()).delete('/api/p1/notes/x').set(as('owner'));
    expect(badParam.status).toBe(400);
    expect(badParam.body.error.message).toBe('noteId: has an invalid format');
    const badQuery = await request(app()).get('/api/p1/notes?limit=5&sort=x').set(as('owner'));
    expect(badQuery.body.error.message).toBe('sort: is not allowed');
    const badBody = await request(app()).post('/api/p1/notes').set(as('owner')).send({ text: '' });
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.message).toBe('text: must not be empty');
  });

  it('when a route takes no query and one is sent, then 400 names it', async () => {
    const response = await request(app()).delete('/api/p1/notes/n-1?force=1').set(as('owner'));
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe('force: is not allowed');
  });

  it('when the handler answers created with a location, then 201 and Location under the mount path', async () => {
    const response = await request(app()).post('/api/p1/notes').set(as('member')).send({ text: 'hello' });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/p1/notes/n-1');
    expect(response.body).toEqual({ success: true, data: { projectId: 'p1', text: 'hello' } });
  });

  it('when the handler throws a coded error, then the error middleware answers its envelope', async () => {
    const response = await request(app()).delete('/api/p1/notes/n-9').set(as('owner'));
    expect(response.status).toBe(409);
    expect(response.body.error).toEqual({ code: 'CONFLICT', message: 'The note is pinned' });
  });

  it('when a route whose body is optional gets none, then its handler reads it as an empty body', async () => {
    const response = await request(app()).post('/api/p1/notes/n-1/close').set(as('member'));
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ reason: null });
  });

  it('when a route reads its own body, then its reader runs first and the handler may answer another media type', async () => {
    const response = await request(app())
      .post('/api/p1/notes/import')
      .set(as('member'))
      .set('Content-Type', 'text/plain')
      .send('notes');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(response.text).toBe('# notes');
  });

  it('when a handler is missing or given for an undeclared route, then binding refuses at start', () => {
    const handlers = {
      'get /{projectId}/notes': () => null,
      'post /{projectId}/notes': () => null,
      'delete /{projectId}/notes/{noteId}': () => null,
      'post /{projectId}/notes/{noteId}/close': () => null,
      'post /{projectId}/notes/import': () => null,
    };
    const { 'post /{projectId}/notes/import': _import, ...incomplete } = handlers;
    expect(() => bindRoutes(notes, incomplete as typeof handlers)).toThrow(
      'No handler for post /{projectId}/notes/import',
    );
    // Both are type errors too; a binding built around the types is refused all the same.
    const extra = { ...handlers, 'get /elsewhere': () => null } as typeof handlers;
    expect(() => bindRoutes(notes, extra)).toThrow(
      'A handler is given for get /elsewhere, which is not declared',
    );
  });

  it('when a declaration cannot be honoured (a bearer route without its project first, a non-JSON body the binder would parse), then binding refuses', () => {
    const misplaced = defineRoutes([
      { ...route, method: 'get', path: '/notes', summary: 'x', roles: READER_ROLES },
    ]);
    expect(() => bindRoutes(misplaced, { 'get /notes': () => null })).toThrow(
      'get /notes: a bearer route names its project first in its path',
    );
    const xml = defineRoutes([
      {
        ...route,
        method: 'post',
        path: '/{projectId}/xml',
        summary: 'x',
        roles: WRITER_ROLES,
        body: z.string(),
        bodyContentTypes: ['application/xml'],
      },
    ]);
    expect(() => bindRoutes(xml, { 'post /{projectId}/xml': () => null })).toThrow(
      "post /{projectId}/xml: a body that is not JSON is the handler's to read; list it in rawInput",
    );
  });
});
