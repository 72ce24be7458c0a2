import { z } from 'zod';
import { NOT_BLANK_PATTERN, queryInteger, READER_ROLES, successEnvelope } from '@verdict/contracts';
import { buildOpenApiDocument, type RouteLink, type RouteSpec } from './openapi';

/** A folder holds folders: zod can only describe it with references. */
interface Folder {
  name: string;
  folders: Folder[];
}
const Folder: z.ZodType<Folder> = z.object({
  name: z.string(),
  get folders() {
    return z.array(Folder);
  },
});

function refsOf(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsOf(item, found));
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else refsOf(item, found);
    }
  return found;
}

/** A JSON pointer (`#/a/b`) from the document's root. */
const resolve = (document: unknown, ref: string): unknown =>
  ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], document);

describe('buildOpenApiDocument', () => {
  const document = buildOpenApiDocument({
    title: 'T',
    version: '1',
    serverUrl: 'http://localhost',
    groups: [
      {
        prefixes: ['/api'],
        routes: [
          {
            method: 'get',
            path: '/{projectId}/folders/{folderId}',
            summary: 'A folder inside the envelope',
            tag: 'Folders',
            security: 'bearer',
            roles: READER_ROLES,
            responses: { 200: { description: 'OK', schema: successEnvelope(Folder) } },
          },
          {
            method: 'post',
            path: '/{projectId}/folders',
            summary: 'A folder as the whole body',
            tag: 'Folders',
            security: 'bearer',
            roles: READER_ROLES,
            body: Folder,
            responses: { 201: { description: 'Created', schema: successEnvelope(Folder) } },
          },
          {
            method: 'get',
            path: '/{projectId}/folders',
            summary: 'Folders, a page at a time',
            tag: 'Folders',
            security: 'bearer',
            roles: READER_ROLES,
            query: z.object({
              limit: queryInteger({ min: 1, max: 100, fallback: 20 }),
              page: queryInteger({ min: 1, fallback: 1 }),
              name: z.string().trim().min(1).max(50).optional(),
            }),
            responses: { 200: { description: 'OK', schema: successEnvelope(z.array(Folder)) } },
          },
          {
            method: 'post',
            path: '/{projectId}/folders/{folderId}/files',
            summary: 'A file into a folder',
            tag: 'Folders',
            security: 'bearer',
            roles: READER_ROLES,
            bodyContentTypes: ['multipart/form-data'],
            body: z.object({ file: z.string().meta({ format: 'binary' }), note: z.string().optional() }),
            responses: { 201: { description: 'Created' } },
          },
          {
            method: 'delete',
            path: '/{projectId}/folders/{folderId}',
            summary: 'A folder removed, from the web app only',
            tag: 'Folders',
            security: 'bearer',
            roles: READER_ROLES,
            sessionOnly: true,
            responses: { 200: { description: 'OK' } },
          },
        ],
      },
    ],
  });

  it('when a schema refers to itself, nested or as the whole body, then every reference resolves from the document root', () => {
    const refs = refsOf(document);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((ref) => !ref.startsWith('#/components/'))).toEqual([]);
    expect(refs.filter((ref) => resolve(document, ref) === undefined)).toEqual([]);
  });

  it('when a route takes a token, then it lists 401, 403 and a 429 with Retry-After and the rate-limit headers', () => {
    const operation = document.paths['/api/{projectId}/folders']?.post as {
      responses: Record<string, unknown>;
    };
    expect(operation.responses).toMatchObject({
      401: { $ref: '#/components/responses/Unauthorized' },
      403: { $ref: '#/components/responses/Forbidden' },
      429: { $ref: '#/components/responses/RateLimited' },
    });
    const limited = resolve(document, '#/components/responses/RateLimited') as { headers: object };
    expect(Object.keys(limited.headers).sort()).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
    ]);
  });

  it('when a route takes a token, then either a bearer token or the session cookie opens it; when it is session-only, the cookie alone', () => {
    const folder = document.paths['/api/{projectId}/folders/{folderId}'] as Record<
      string,
      { security: unknown }
    >;
    expect(folder.get?.security).toEqual([{ bearerToken: [] }, { sessionCookie: [] }]);
    expect(folder.delete?.security).toEqual([{ sessionCookie: [] }]);
  });

  it('when a query parameter is an integer parsed from its text, then it shows as an integer with its bounds and numeric default', () => {
    const operation = document.paths['/api/{projectId}/folders']?.get as {
      parameters: { name: string; schema: unknown }[];
    };
    expect(operation.parameters.find((p) => p.name === 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
  });

  it('when a query integer has no upper bound of its own, then the document shows what an integer column holds, which the API enforces', () => {
    const operation = document.paths['/api/{projectId}/folders']?.get as {
      parameters: { name: string; schema: unknown }[];
    };
    expect(operation.parameters.find((p) => p.name === 'page')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 2_147_483_647,
      default: 1,
    });
  });

  it('when a string is trimmed and must not be empty, then the document says so with a pattern: "   " is refused too', () => {
    const operation = document.paths['/api/{projectId}/folders']?.get as {
      parameters: { name: string; schema: { pattern: string } }[];
    };
    const name = operation.parameters.find((p) => p.name === 'name')?.schema;
    expect(name).toMatchObject({ type: 'string', minLength: 1, maxLength: 50, pattern: NOT_BLANK_PATTERN });
    const blank = new RegExp(name?.pattern ?? '');
    expect([' \t\u00a0', 'a', ' a '].map((value) => blank.test(value))).toEqual([false, true, true]);
  });

  it('when any operation is listed, then its statuses are all there and nothing is left to a default: 5XX and 431 included', () => {
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations) as { responses: Record<string, unknown> }[]) {
        expect(operation.responses.default).toBeUndefined();
        expect(operation.responses).toMatchObject({
          '5XX': { $ref: '#/components/responses/ServerError' },
          431: { $ref: '#/components/responses/HeadersTooLarge' },
        });
      }
    }
  });

  it('when a body is multipart, then its fields are described, the file as binary', () => {
    const operation = document.paths['/api/{projectId}/folders/{folderId}/files']?.post as {
      requestBody: { content: Record<string, { schema: unknown }> };
      responses: Record<string, unknown>;
    };
    expect(operation.requestBody.content['multipart/form-data']?.schema).toMatchObject({
      type: 'object',
      properties: { file: { type: 'string', format: 'binary' }, note: { type: 'string' } },
      required: ['file'],
    });
    expect(operation.responses).toMatchObject({ 413: { $ref: '#/components/responses/PayloadTooLarge' } });
  });

  it('when a definition is hoisted, then it still describes the folder and its folders', () => {
    const body = document.paths['/api/{projectId}/folders']?.post as {
      requestBody: { content: { 'application/json': { schema: { $ref: string } } } };
    };
    const folder = resolve(document, body.requestBody.content['application/json'].schema.$ref) as {
      properties: { name: unknown; folders: { items: { $ref: string } } };
    };
    expect(folder.properties.name).toEqual({ type: 'string' });
    expect(resolve(document, folder.properties.folders.items.$ref)).toBe(folder);
  });
});

describe('buildOpenApiDocument: links', () => {
  const Made = successEnvelope(z.object({ id: z.string(), items: z.array(z.object({ _id: z.string() })) }));
  const route = (method: 'get' | 'post', path: string, extra: Partial<RouteSpec> = {}) =>
    ({
      method,
      path,
      summary: path,
      tag: 'Things',
      security: 'bearer',
      roles: READER_ROLES,
      responses: { 200: { description: 'OK', schema: Made }, 201: { description: 'Made', schema: Made } },
      ...extra,
    }) as RouteSpec;
  const documentOf = (routes: RouteSpec[]) =>
    buildOpenApiDocument({
      title: 'T',
      version: '1',
      serverUrl: 'http://localhost',
      groups: [{ prefixes: ['/api'], routes }],
    }) as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { links?: unknown }> }>>;
    };
  const target = route('get', '/{projectId}/things/{thingId}/items/{itemId}');
  /** A create whose success links to an item of the thing, with these parameters. */
  const linkingToItem = (parameters: RouteLink['parameters']) =>
    documentOf([
      route('post', '/{projectId}/things', {
        links: { item: { to: 'get /{projectId}/things/{thingId}/items/{itemId}', parameters } },
      }),
      target,
    ]);

  it('when a route declares where its success leads, then each 2xx answer links to that operation, the new ids read from the answer and the shared path parameters passed on', () => {
    const document = documentOf([
      route('post', '/{projectId}/things', {
        links: {
          item: {
            to: 'get /{projectId}/things/{thingId}/items/{itemId}',
            parameters: { thingId: '$response.body#/data/id', itemId: '$response.body#/data/items/0/_id' },
          },
        },
      }),
      target,
    ]);
    const expected = {
      item: {
        operationId: 'getApiProjectIdThingsThingIdItemsItemId',
        parameters: {
          projectId: '$request.path.projectId',
          thingId: '$response.body#/data/id',
          itemId: '$response.body#/data/items/0/_id',
        },
      },
    };
    const answers = document.paths['/api/{projectId}/things']!.post!.responses;
    expect(answers['200']!.links).toEqual(expected);
    expect(answers['201']!.links).toEqual(expected);
    expect(answers['400']!.links).toBeUndefined();
    expect(Object.values(document.paths).flatMap(Object.values)).toContainEqual(
      expect.objectContaining({ operationId: expected.item.operationId }),
    );
  });

  it('when a link leads to an operation the document does not have (a document of part of the API), then that link is left out and the others stay', () => {
    const document = documentOf([
      route('post', '/{projectId}/things', {
        links: {
          gone: { to: 'get /{projectId}/gone', parameters: {} },
          item: {
            to: 'get /{projectId}/things/{thingId}/items/{itemId}',
            parameters: { thingId: '$response.body#/data/id', itemId: '$response.body#/data/items/0/_id' },
          },
        },
      }),
      target,
    ]);
    expect(
      Object.keys(document.paths['/api/{projectId}/things']!.post!.responses['201']!.links ?? {}),
    ).toEqual(['item']);
  });

  it('when a link leaves a path parameter of its target unset, then the document is not built', () => {
    expect(() => linkingToItem({ thingId: '$response.body#/data/id' })).toThrow(
      "leaves get /{projectId}/things/{thingId}/items/{itemId}'s {itemId} unset",
    );
  });

  it('when a link reads a value its answer does not hold, then the document is not built', () => {
    expect(() =>
      linkingToItem({ thingId: '$response.body#/data/_id', itemId: '$response.body#/data/items/0/_id' }),
    ).toThrow('reads /data/_id from an answer that has no such value');
  });

  it('when a link sets a parameter its target does not take, then the document is not built', () => {
    expect(() =>
      documentOf([
        route('post', '/{projectId}/things', {
          links: {
            thing: { to: 'get /{projectId}/things', parameters: { thingId: '$response.body#/data/id' } },
          },
        }),
        route('get', '/{projectId}/things'),
      ]),
    ).toThrow('sets {thingId}, which get /{projectId}/things does not take');
  });
});
