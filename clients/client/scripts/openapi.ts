// The OpenAPI documents the client is typed from, built from the same route declarations the gateway
// serves (never a copy of a served document), split by API so each client sees its paths from its base.
import {
  ADMIN_PREFIX,
  adminOpenApiDocument,
  API_PREFIXES,
  openApiDocument,
  SERVICE_ROUTES,
} from '@verdict/gateway';

type Document = ReturnType<typeof openApiDocument>;

/** Where the client's paths are relative to: the public API base and the admin API base. */
export const DOCUMENT_BASES = { public: API_PREFIXES[0], admin: ADMIN_PREFIX } as const;

const publicUrl = 'http://localhost:8080';

/** The two documents the gateway serves (the public API's, for the routes every service declares, and the admin API's). */
export function servedDocuments(): Record<keyof typeof DOCUMENT_BASES, Document> {
  return {
    public: openApiDocument({
      publicUrl,
      services: Object.entries(SERVICE_ROUTES).map(([name, routes]) => ({
        name,
        routes,
        // Only the routes matter to the document; nothing is forwarded.
        target: { kind: 'http' as const, url: 'http://localhost' },
      })),
    }),
    admin: adminOpenApiDocument({ publicUrl }),
  };
}

/**
 * The part of a document under one base, its paths relative to that base (`/{projectId}/test-runs`), so a
 * client built on the base calls them as they read in the API reference.
 */
export function documentUnder(document: Document, base: string): Document {
  const paths = Object.fromEntries(
    Object.entries(document.paths)
      .filter(([path]) => path.startsWith(`${base}/`))
      .map(([path, item]) => [path.slice(base.length), item]),
  );
  if (Object.keys(paths).length === 0) throw new Error(`The OpenAPI document has no path under ${base}`);
  return { ...document, servers: [{ url: `${document.servers[0]?.url ?? ''}${base}` }], paths };
}
