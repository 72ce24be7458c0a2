import { z } from 'zod';
import { MembershipRole } from './identity';
import { instantInput } from './instant';
import { queryInteger } from './http';

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

/** A project's settings (`GET /{projectId}/settings`). */
export const ProjectSettings = z.object({
  projectId: z.string(),
  defaultBranch: z
    .string()
    .describe("The base branch of runs that name none, for each failure's verdict; `main` until changed"),
});
export type ProjectSettings = z.infer<typeof ProjectSettings>;

/** `PATCH /{projectId}/settings` (owner or admin). */
export const UpdateProjectSettingsRequest = z.strictObject({
  defaultBranch: z.string().trim().min(1).max(500),
});
export type UpdateProjectSettingsRequest = z.infer<typeof UpdateProjectSettingsRequest>;

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

// ---------------------------------------------------------------------------------------------------------
// A signed-in person's own tokens (docs/web.md "Your tokens"): listed by anyone signed in, issued and
// revoked only from a web session, so a leaked token cannot mint more of itself.

/** A token a person issues for themself expires after this many days unless they ask for less. */
export const OWN_TOKEN_DEFAULT_DAYS = 90;
/** …and never later than this many days after it is issued. */
export const OWN_TOKEN_MAX_DAYS = 365;

const OwnTokenId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'must be an id (letters, digits, "-" and "_")' });

export const OwnTokensQuery = z.strictObject({
  page: queryInteger({ min: 1, fallback: 1 }),
  limit: queryInteger({ min: 1, max: 100, fallback: 20 }),
});
export type OwnTokensQuery = z.infer<typeof OwnTokensQuery>;

export const OwnTokenPath = z.object({ tokenId: OwnTokenId });

export const IssueOwnTokenRequest = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, { error: 'must not be empty: name the token after where it will be used' })
    .max(100)
    .describe('What the token is for (a CI job, a laptop); shown in the list'),
  expiresAt: instantInput((input) =>
    input === null
      ? `must be a date-time: every token expires (at most ${OWN_TOKEN_MAX_DAYS} days)`
      : undefined,
  )
    .optional()
    .describe(
      `When the token stops working: in the future and at most ${OWN_TOKEN_MAX_DAYS} days from now; default ${OWN_TOKEN_DEFAULT_DAYS} days`,
    ),
  projectIds: z
    .array(OwnTokenId)
    .min(1)
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, { error: 'must not name a project twice' })
    .optional()
    .describe('Projects the token reaches, among those this session reaches; default: all of them'),
});
export type IssueOwnTokenRequest = z.infer<typeof IssueOwnTokenRequest>;

/** One of the person's own tokens, as the list shows it: never its secret. */
export const OwnToken = z.object({
  id: z.string(),
  name: z.string().nullable(),
  scopes: z
    .array(z.string())
    .describe(
      'As token-info shows them: organizations/{organizationId}/projects/{projectId} for each project, then the capabilities (public-api)',
    ),
  projectIds: z.array(z.string()),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  lastUsed: z.iso
    .datetime()
    .nullable()
    .describe('The latest authenticated request made with it; null when never used (or not known)'),
  usageCount: z.number().int().describe('Authenticated requests made with it'),
  current: z
    .boolean()
    .describe('The token of the session (or bearer token) asking: revoking it signs you out'),
});
export type OwnToken = z.infer<typeof OwnToken>;

// ---------------------------------------------------------------------------------------------------------
// A project's members (docs/web.md): the people of its organization, to assign manual runs, run cases
// and exploratory sessions to.

export const ProjectMembersQuery = z.strictObject({
  page: queryInteger({ min: 1, fallback: 1 }),
  limit: queryInteger({ min: 1, max: 100, fallback: 20 }),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Only members whose first name, last name or e-mail address contains this (any letter case)'),
});
export type ProjectMembersQuery = z.infer<typeof ProjectMembersQuery>;

export const ProjectMember = z.object({
  userId: z.string().describe('What assigneeUserId takes'),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  role: MembershipRole.describe("The member's role in the project's organization"),
});
export type ProjectMember = z.infer<typeof ProjectMember>;
