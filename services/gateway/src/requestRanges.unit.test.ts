import { STORED_INTEGER_MAX } from '@verdict/contracts';
import { adminOpenApiDocument, openApiDocument } from './app';
import { SERVICE_ROUTES } from './serviceRoutes';

// Issue 33: a black-box run found a line number the schema accepted and an `integer` column could not hold
// (a 500, and a client retrying the batch forever). Every integer a request carries, in its parameters or
// its body, is declared within what a column holds; numbers that are not integers land in `double
// precision` columns or JSON, which hold every finite JSON number.

type Schema = {
  $ref?: string;
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  [key: string]: unknown;
};
interface Operation {
  parameters?: Array<{ name: string; in: string; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/**
 * Integers no integer column keeps, each with where it is kept instead. Their event contracts cannot be
 * narrowed after the fact either: the schema registry refuses a contract that would not read old events.
 */
const NOT_IN_INTEGER_COLUMNS: Array<[RegExp, string]> = [
  [/debug-bundle query:attempt$/, 'never stored: an index past every attempt is INVALID_ATTEMPT (spec §4.2)'],
  [/\/coverage body\./, 'the coverage report is kept as jsonb, which holds every safe integer'],
  [/\/gate-rules body\./, 'gate rules are kept as jsonb and compared in JavaScript'],
];
const exempt = (where: string) => NOT_IN_INTEGER_COLUMNS.some(([pattern]) => pattern.test(where));

/** Every integer of a request schema, named by where it sits, with its declared bounds. */
function integersOf(document: Document, schema: Schema, where: string, seen = new Set<string>()) {
  const found: Array<{ where: string; minimum?: number; maximum?: number }> = [];
  const visit = (node: unknown, at: string): void => {
    if (node === null || typeof node !== 'object') return;
    const s = node as Schema;
    if (s.$ref) {
      const name = s.$ref.split('/').pop() ?? '';
      if (seen.has(name)) return;
      seen.add(name);
      visit(document.components?.schemas?.[name], at);
      return;
    }
    if ([s.type].flat().includes('integer'))
      found.push({ where: at, minimum: s.minimum, maximum: s.maximum });
    for (const [key, value] of Object.entries(s)) {
      if (key === 'properties')
        for (const [name, field] of Object.entries(s.properties ?? {})) visit(field, `${at}.${name}`);
      else if (Array.isArray(value)) value.forEach((item) => visit(item, at));
      else if (typeof value === 'object') visit(value, at);
    }
  };
  visit(schema, where);
  return found;
}

function requestIntegers(document: Document) {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).flatMap(([method, operation]) => [
      ...(operation.parameters ?? []).flatMap((parameter) =>
        integersOf(document, parameter.schema, `${method} ${path} ${parameter.in}:${parameter.name}`),
      ),
      ...Object.values(operation.requestBody?.content ?? {}).flatMap(({ schema }) =>
        integersOf(document, schema, `${method} ${path} body`),
      ),
    ]),
  );
}

describe('the integers a request may carry', () => {
  const services = Object.entries(SERVICE_ROUTES).map(([name, routes]) => ({
    name,
    routes,
    target: { kind: 'http' as const, url: 'http://127.0.0.1:1' },
  }));
  const documents = [
    openApiDocument({ publicUrl: 'http://localhost', services }),
    adminOpenApiDocument({ publicUrl: 'http://localhost' }),
  ] as unknown as Document[];
  const integers = documents.flatMap(requestIntegers);

  it('when both documents are read, then they declare integers in requests (the walk finds them)', () => {
    expect(integers.map(({ where }) => where)).toEqual(
      expect.arrayContaining([
        'post /api/public/v1/{projectId}/test-runs/{runId}/results body.results.error.location.line',
        'get /api/public/v1/{projectId}/test-runs query:page',
      ]),
    );
  });

  it('when an integer is stored, then its schema declares bounds a PostgreSQL integer column holds', () => {
    const outOfColumn = integers
      .filter(({ where }) => !exempt(where))
      .filter(
        ({ minimum, maximum }) =>
          minimum === undefined ||
          maximum === undefined ||
          minimum < -STORED_INTEGER_MAX - 1 ||
          maximum > STORED_INTEGER_MAX,
      );
    expect(outOfColumn).toEqual([]);
  });
});
