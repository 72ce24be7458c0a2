import { z } from 'zod';
import { MembershipRole } from './identity';

/** Spec §4.1: token-info takes no parameters; one sent is a mistake worth a 400, as on usage and dashboard. */
export const TokenInfoQuery = z.strictObject({});

/** Spec §2 "Token metadata", the `data` of GET /{projectId}/token-info (spec §4.1). */
export const TokenInfo = z.object({
  id: z.string(),
  scopes: z
    .array(z.string())
    .describe(
      'The source of truth for project access: `organizations/<organizationId>/projects/<projectId>` for each project the token reaches, then capability scopes such as `public-api`.',
    ),
  projectName: z.string(),
  expiresAt: z.iso
    .datetime()
    .nullable()
    .describe(
      'When the token stops working (by default 365 days after it was issued); null only for a token an earlier version issued with expiresAt: null (issuing one is refused now)',
    ),
  createdAt: z.iso.datetime(),
  lastUsed: z.iso.datetime().describe('Time of the latest authenticated request of the token (this one)'),
  usageCount: z.number().int().describe('Authenticated requests of the token, this one included'),
  rateLimit: z.object({ limit: z.number().int(), window: z.string() }),
  role: MembershipRole.describe(
    "The role of the token's owner (for a project token, the user who created it) in this project's organization: owner, admin and member may make changes, viewer may only read (spec §5.4); webhook changes need owner or admin",
  ),
});
export type TokenInfo = z.infer<typeof TokenInfo>;

/** The path of every project-scoped route. */
export const ProjectPath = z.object({ projectId: z.string().min(1) });

/**
 * Where the gateway serves artifact downloads. Their URLs are signed and expire (API.md: default 15
 * minutes); the signature is the credential, so no bearer token is asked for.
 */
export const SIGNED_DOWNLOAD_PATH = '/downloads';

/**
 * Where the gateway serves Playwright's trace viewer (the static build playwright-core ships), so that
 * `links.traceViewerUrl` opens a trace on this server, never on trace.playwright.dev.
 */
export const TRACE_VIEWER_PATH = '/trace-viewer';

// ---------------------------------------------------------------------------------------------------------
// Web sessions (docs/web.md): a person signs in once with a personal access token, or with the one-time
// link `npm start` prints, and the browser then carries an httpOnly cookie instead of the token.

/** `POST /session`: exactly one of a personal access token or a one-time sign-in code. */
export const SignInRequest = z
  .strictObject({
    token: z.string().min(1).max(500).optional().describe('A personal access token (svc_pat_…)'),
    code: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The code of a one-time sign-in link (single use, expires)'),
  })
  .superRefine((body, ctx) => {
    if ((body.token === undefined) === (body.code === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['token'], message: 'send exactly one of token or code' });
    }
  });
export type SignInRequest = z.infer<typeof SignInRequest>;

export const SessionRole = z.enum(['owner', 'admin', 'member', 'viewer']);

/** What the signed-in person is and may reach: the answer of `GET /session` and of a sign-in. */
export const SessionInfo = z.object({
  user: z
    .object({ id: z.string(), email: z.string(), firstName: z.string(), lastName: z.string() })
    .nullable()
    .describe("The token's owner; null when the identity read model does not know it (yet)"),
  token: z.object({
    id: z.string(),
    name: z.string().nullable(),
    kind: z.enum(['personal', 'project']),
    expiresAt: z.iso.datetime().nullable(),
  }),
  projects: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        organizationId: z.string(),
        organizationName: z.string(),
        role: SessionRole.nullable().describe(
          "The owner's role in the project's organization; null: not a member (every request refused)",
        ),
      }),
    )
    .describe('The projects the token reaches, by organization then name'),
  csrfToken: z
    .string()
    .nullable()
    .describe(
      'Send it as the X-CSRF-Token header with every write made with the session cookie; null when the request carried a bearer token instead',
    ),
  idleTimeoutSeconds: z
    .number()
    .int()
    .nullable()
    .describe('The session ends after this long without a request; null for a bearer token'),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

export const SignedOut = z.object({ signedOut: z.literal(true) });

/** The name of the session cookie (httpOnly, SameSite=Lax, Secure behind https). */
export const SESSION_COOKIE = 'verdict_session';
/** The header that carries the session's CSRF token on writes. */
export const CSRF_HEADER = 'X-CSRF-Token';
