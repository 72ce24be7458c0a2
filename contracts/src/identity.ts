import { z } from 'zod';
import { INSTANT_RANGE, instantInput, InstantInput } from './instant';
import { defineEvent, type EventOf } from './events';
import { queryInteger, ROLES, STORED_INTEGER_MAX } from './http';

/**
 * Identity: organizations (with their plan, projects and memberships), users and access tokens. The
 * events the gateway's identity store records, and the payloads of the admin API (API.md,
 * "Administration"). Times are ISO 8601 UTC strings; ids are opaque strings.
 */

const Timestamp = z.iso.datetime({ offset: true });
/** Ids in paths and bodies: opaque, but bounded and free of characters that need escaping. */
const Id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'must be an id (letters, digits, "-" and "_")' });
const DisplayName = z.string().trim().min(1).max(200);

export const MembershipRole = z.enum(ROLES);
export type MembershipRole = z.infer<typeof MembershipRole>;

/** Capabilities a token may carry. A project token without `public-api` is refused by the public API. */
export const TokenScope = z.enum(['public-api']);
export type TokenScope = z.infer<typeof TokenScope>;

export const TokenKind = z.enum(['personal', 'project']);
export type TokenKind = z.infer<typeof TokenKind>;

/** An organization's subscription: its monthly test-case budget and how many projects it may have. */
export const Plan = z.object({
  name: z.string().trim().min(1).max(100),
  testCaseLimit: z.number().int().min(0),
  projectLimit: z.number().int().min(1),
  periodStart: Timestamp.nullable(),
  periodEnd: Timestamp.nullable(),
});
export type Plan = z.infer<typeof Plan>;

/** Spec §2 and §8: without a subscription, 5,000 test cases a month and 1 project. */
export const FREE_PLAN: Plan = Object.freeze({
  name: 'free',
  testCaseLimit: 5000,
  projectLimit: 1,
  periodStart: null,
  periodEnd: null,
});

// ---------------------------------------------------------------------------------------------------------
// Events (version 1). Stream ids: `organization-<organizationId>` (the organization, its projects and
// memberships), `user-<normalized e-mail>` (one user per address), `token-<tokenId>`.

export const OrganizationCreated = defineEvent(
  'organization.created',
  1,
  z.object({ organizationId: z.string(), name: z.string(), plan: Plan, createdAt: Timestamp }),
);

export const ProjectCreated = defineEvent(
  'project.created',
  1,
  z.object({
    projectId: z.string(),
    organizationId: z.string(),
    name: z.string(),
    /** Test cases a month reserved for this project out of the organization's limit; null: none. */
    allocation: z.number().int().min(0).nullable(),
    createdAt: Timestamp,
  }),
);

/** A project's settings changed (owner or admin, `PATCH /{projectId}/settings`); each field as it is now. */
export const ProjectSettingsChanged = defineEvent(
  'project.settings-changed',
  1,
  z.object({
    projectId: z.string(),
    organizationId: z.string(),
    /** The base branch of runs that name none (a verdict per failure). */
    defaultBranch: z.string(),
    changedBy: z.string(),
    changedAt: Timestamp,
  }),
);

export const MembershipSet = defineEvent(
  'membership.set',
  1,
  z.object({
    organizationId: z.string(),
    userId: z.string(),
    role: MembershipRole,
    /** The role before, null when the user was not a member. */
    previousRole: MembershipRole.nullable(),
    setAt: Timestamp,
  }),
);

export const UserCreated = defineEvent(
  'user.created',
  1,
  z.object({
    userId: z.string(),
    /** As given; uniqueness is on its normalized (trimmed, lower-case) form. */
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    createdAt: Timestamp,
  }),
);

export const TokenIssued = defineEvent(
  'token.issued',
  1,
  z.object({
    tokenId: z.string(),
    kind: TokenKind,
    name: z.string().nullable(),
    /** The user whose role applies: the owner of a personal token, the creator of a project token. */
    ownerUserId: z.string(),
    projectIds: z.array(z.string()).min(1),
    scopes: z.array(TokenScope),
    /** Hex SHA-256 of the secret; the cleartext is never recorded. */
    secretHash: z.string().regex(/^[0-9a-f]{64}$/),
    expiresAt: Timestamp.nullable(),
    createdAt: Timestamp,
  }),
);

export const TokenRevoked = defineEvent(
  'token.revoked',
  1,
  z.object({ tokenId: z.string(), revokedAt: Timestamp }),
);

/** Every identity event type, for consumers that dispatch on type and version. */
export const IDENTITY_EVENTS = [
  OrganizationCreated,
  ProjectCreated,
  ProjectSettingsChanged,
  MembershipSet,
  UserCreated,
  TokenIssued,
  TokenRevoked,
] as const;

export type OrganizationEvent = EventOf<
  typeof OrganizationCreated | typeof ProjectCreated | typeof ProjectSettingsChanged | typeof MembershipSet
>;
export type UserEvent = EventOf<typeof UserCreated>;
export type TokenEvent = EventOf<typeof TokenIssued | typeof TokenRevoked>;
export type IdentityEvent = OrganizationEvent | UserEvent | TokenEvent;

/**
 * Parses an event (read back from the store or the bus) into the identity union; throws a ZodError when
 * its data does not fit and an Error when its type or version is not an identity event.
 *
 * @example const event = parseIdentityEvent({ type: envelope.type, version: envelope.version, data: envelope.data });
 */
export function parseIdentityEvent(event: { type: string; version: number; data: unknown }): IdentityEvent {
  const known = IDENTITY_EVENTS.find((candidate) => candidate.is(event));
  if (!known) throw new Error(`Not an identity event: ${event.type} version ${event.version}`);
  return known.schema.parse(event);
}

// ---------------------------------------------------------------------------------------------------------
// Admin API payloads (`/admin/v1`). Requests are strict: an unknown field is a 400, so a typo such as
// `projectId` on a personal token is reported instead of ignored.

export const AdminOrganizationPath = z.object({ organizationId: Id });
export const AdminMemberPath = z.object({ organizationId: Id, userId: Id });
export const AdminTokenPath = z.object({ tokenId: Id });

export const CreateOrganizationRequest = z.strictObject({
  name: DisplayName,
  plan: z
    .strictObject({
      name: z.string().trim().min(1).max(100),
      testCaseLimit: z.number().int().min(0).max(STORED_INTEGER_MAX),
      projectLimit: z.number().int().min(1).max(STORED_INTEGER_MAX),
      periodStart: InstantInput.optional(),
      periodEnd: InstantInput.optional(),
    })
    .refine((plan) => (plan.periodStart === undefined) === (plan.periodEnd === undefined), {
      error: 'must be sent together with periodStart',
      path: ['periodEnd'],
    })
    .refine(
      (plan) =>
        plan.periodStart === undefined ||
        plan.periodEnd === undefined ||
        Date.parse(plan.periodEnd) > Date.parse(plan.periodStart),
      { error: 'must be after periodStart', path: ['periodEnd'] },
    )
    .optional(),
});
export type CreateOrganizationRequest = z.infer<typeof CreateOrganizationRequest>;

export const AdminOrganization = z.object({
  id: z.string(),
  name: z.string(),
  plan: Plan,
  createdAt: Timestamp,
});
export type AdminOrganization = z.infer<typeof AdminOrganization>;

export const CreateProjectRequest = z.strictObject({
  name: DisplayName,
  /** Test cases a month reserved for the project out of the organization's limit. */
  allocation: z.number().int().min(0).max(STORED_INTEGER_MAX).optional(),
});
export type CreateProjectRequest = z.infer<typeof CreateProjectRequest>;

export const AdminProject = z.object({
  id: z.string(),
  name: z.string(),
  organizationId: z.string(),
  allocation: z.number().int().nullable(),
  createdAt: Timestamp,
});
export type AdminProject = z.infer<typeof AdminProject>;

export const CreateUserRequest = z.strictObject({
  email: z.string().trim().max(254).pipe(z.email()),
  firstName: z.string().trim().min(1).max(100),
  lastName: z.string().trim().min(1).max(100),
});
export type CreateUserRequest = z.infer<typeof CreateUserRequest>;

export const AdminUser = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  createdAt: Timestamp,
});
export type AdminUser = z.infer<typeof AdminUser>;

export const SetMembershipRequest = z.strictObject({ role: MembershipRole });
export type SetMembershipRequest = z.infer<typeof SetMembershipRequest>;

export const AdminMembership = z.object({
  organizationId: z.string(),
  userId: z.string(),
  role: MembershipRole,
  updatedAt: Timestamp,
});
export type AdminMembership = z.infer<typeof AdminMembership>;

/**
 * When a token stops working. Every token expires: token-info's `expiresAt` is a date-time (spec §2), so
 * `null` (never) is refused, by name, rather than issuing a token whose metadata breaks that type.
 */
const TokenExpiry = instantInput((input) =>
  input === null
    ? 'must be a date-time: every token expires (leave it out for 365 days from now)'
    : undefined,
).meta({
  description: `When the token stops working: a date-time in the future, ${INSTANT_RANGE.to} at the latest; default 365 days from now`,
});

export const IssuePersonalTokenRequest = z.strictObject({
  kind: z.literal('personal'),
  userId: Id,
  name: DisplayName.optional(),
  projectIds: z
    .array(Id)
    .min(1)
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, { error: 'must not name a project twice' }),
  expiresAt: TokenExpiry.optional(),
});
export type IssuePersonalTokenRequest = z.infer<typeof IssuePersonalTokenRequest>;

export const IssueProjectTokenRequest = z.strictObject({
  kind: z.literal('project'),
  projectId: Id,
  createdByUserId: Id,
  name: DisplayName.optional(),
  /** Defaults to `['public-api']`: a project token without it could not call the public API. */
  scopes: z
    .array(TokenScope)
    .max(10)
    .refine((scopes) => new Set(scopes).size === scopes.length, { error: 'must not name a scope twice' })
    .optional(),
  expiresAt: TokenExpiry.optional(),
});
export type IssueProjectTokenRequest = z.infer<typeof IssueProjectTokenRequest>;

export const IssueTokenRequest = z.discriminatedUnion(
  'kind',
  [IssuePersonalTokenRequest, IssueProjectTokenRequest],
  { error: 'must be "personal" or "project"' },
);
export type IssueTokenRequest = z.infer<typeof IssueTokenRequest>;

/** The answer to issuing a token: the only time its cleartext `token` is ever shown. */
export const IssuedToken = z.object({
  id: z.string(),
  token: z.string(),
  kind: TokenKind,
  name: z.string().nullable(),
  scopes: z
    .array(z.string())
    .describe(
      'As token-info shows them: organizations/{organizationId}/projects/{projectId} for each project, then the capabilities (public-api)',
    ),
  projectIds: z.array(z.string()),
  expiresAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type IssuedToken = z.infer<typeof IssuedToken>;

export const RevokedToken = z.object({ id: z.string(), revokedAt: Timestamp });

// Reads of the admin API: what an operator looks up (a lost id, who can reach a project), never a secret.

const adminPage = {
  page: queryInteger({ min: 1, fallback: 1 }),
  limit: queryInteger({ min: 1, max: 100, fallback: 20 }),
};

/** Oldest first, so that pages do not shift while items are added. */
export const AdminListQuery = z.strictObject(adminPage);
export const AdminUsersQuery = z.strictObject({
  ...adminPage,
  email: z
    .string()
    .trim()
    .min(1)
    .max(254)
    .optional()
    .describe('Exactly this e-mail address, in any letter case'),
});
export type AdminUsersQuery = z.infer<typeof AdminUsersQuery>;
export const AdminTokensQuery = z.strictObject({
  ...adminPage,
  userId: Id.optional().describe('Tokens this user owns (personal) or created (project)'),
  projectId: Id.optional().describe('Tokens that reach this project'),
});
export type AdminTokensQuery = z.infer<typeof AdminTokensQuery>;

export const AdminMember = z.object({ userId: z.string(), role: MembershipRole, updatedAt: Timestamp });
export const AdminOrganizationDetail = AdminOrganization.extend({
  projects: z.array(AdminProject),
  members: z.array(AdminMember),
});
export type AdminOrganizationDetail = z.infer<typeof AdminOrganizationDetail>;

/** A token as the admin API lists it: its metadata, never its secret or the secret's hash. */
export const AdminTokenRecord = z.object({
  id: z.string(),
  kind: TokenKind,
  name: z.string().nullable(),
  ownerUserId: z.string(),
  projectIds: z.array(z.string()),
  scopes: z.array(z.string()).describe('Capability scopes, such as public-api'),
  createdAt: Timestamp,
  expiresAt: Timestamp.nullable(),
  revokedAt: Timestamp.nullable(),
});
export type AdminTokenRecord = z.infer<typeof AdminTokenRecord>;
export type RevokedToken = z.infer<typeof RevokedToken>;
