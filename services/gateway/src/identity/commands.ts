/**
 * The identity use cases behind the admin API and the seeding: check what lives in other aggregates
 * (through the read model), mint ids, time and secrets, let the aggregate decide, append, and answer only
 * once the read model shows the change, so the caller's next request (on any replica) sees it.
 */
import {
  FREE_PLAN,
  type AdminMembership,
  type AdminOrganization,
  type AdminProject,
  type AdminUser,
  type CreateOrganizationRequest,
  type CreateProjectRequest,
  type CreateUserRequest,
  type IssuedToken,
  type IssuePersonalTokenRequest,
  type IssueProjectTokenRequest,
  type IssueTokenRequest,
  type Plan,
  type RevokedToken,
  type SetMembershipRequest,
  type ProjectSettings,
  type TokenScope,
  type UpdateProjectSettingsRequest,
} from '@verdict/contracts';
import {
  NotFoundError,
  ValidationError,
  createCommandHandler,
  newId,
  type AppendMetadata,
  type Clock,
  type DecidedEvent,
  type Decider,
  type EventStore,
  type HandleCommandResult,
} from '@verdict/platform';
import {
  organizationDecider,
  organizationStream,
  type OrganizationState,
} from './organizations/organization';
import { scopesOf } from './directory';
import type { IdentityReadModel } from './projections/identityReadModel';
import { tokenDecider, tokenStream, type TokenState } from './tokens/token';
import { mintToken } from './tokenFormat';
import { userDecider, userStream, type UserState } from './users/user';

/** A project token without scopes given gets these: without `public-api` it could not call the API. */
export const DEFAULT_PROJECT_TOKEN_SCOPES: readonly TokenScope[] = ['public-api'];
/** Personal tokens are not scoped by capability in the admin API: they reach the public API. */
export const PERSONAL_TOKEN_SCOPES: readonly TokenScope[] = ['public-api'];
/**
 * A token issued without `expiresAt` expires after this many days (spec §2: token-info's expiresAt is a
 * date-time). Tokens issued by an earlier version with `expiresAt: null` never expire.
 */
export const DEFAULT_TOKEN_LIFETIME_DAYS = 365;

function expiryOf(requested: string | undefined, now: Date): Date {
  if (requested === undefined) return new Date(now.getTime() + DEFAULT_TOKEN_LIFETIME_DAYS * 86_400_000);
  return new Date(requested);
}

export interface IdentityCommandsOptions {
  store: EventStore;
  readModel: IdentityReadModel;
  clock: Clock;
  /** Resolves once the read model shows `streamId` at `version` (read-your-writes). */
  waitForReadModel(streamId: string, version: number): Promise<void>;
  /** Called after every append that recorded events, to wake the relay at once. */
  onAppended?(): void;
}

/** Who asked: recorded as the events' correlation id. */
export interface CommandContext {
  correlationId?: string;
}

export interface IdentityCommands {
  createOrganization(
    request: CreateOrganizationRequest,
    context?: CommandContext,
  ): Promise<AdminOrganization>;
  createProject(
    organizationId: string,
    request: CreateProjectRequest,
    context?: CommandContext,
  ): Promise<AdminProject>;
  createUser(request: CreateUserRequest, context?: CommandContext): Promise<AdminUser>;
  setMembership(
    organizationId: string,
    userId: string,
    request: SetMembershipRequest,
    context?: CommandContext,
  ): Promise<AdminMembership>;
  issueToken(request: IssueTokenRequest, context?: CommandContext): Promise<IssuedToken>;
  revokeToken(tokenId: string, context?: CommandContext): Promise<RevokedToken>;
  /** `PATCH /{projectId}/settings`: the caller (owner or admin) has been authorized by the route. */
  changeProjectSettings(
    project: { organizationId: string; projectId: string },
    request: UpdateProjectSettingsRequest,
    changedBy: string,
    context?: CommandContext,
  ): Promise<ProjectSettings>;
}

/** The plan of an organization-creation request: the free tier of spec §2 when none is given. */
export function planOf(request: CreateOrganizationRequest): Plan {
  if (!request.plan) return FREE_PLAN;
  const { periodStart, periodEnd, ...rest } = request.plan;
  return { ...rest, periodStart: periodStart ?? null, periodEnd: periodEnd ?? null };
}

function activeOrganization(state: OrganizationState) {
  // handleCommand only returns after the decider accepted, which needs an existing organization.
  if (state.status !== 'active') throw new Error('organization is not active after a successful command');
  return state;
}

function activeUser(state: UserState) {
  if (state.status !== 'active') throw new Error('user is not active after a successful command');
  return state;
}

function issuedToken(state: TokenState) {
  if (state.status === 'absent') throw new Error('token is absent after a successful command');
  return state;
}

/**
 * The identity use cases over a store and the read model.
 *
 * @example const commands = createIdentityCommands({ store, readModel, clock, waitForReadModel }); await commands.createUser({ email, firstName, lastName });
 */
export function createIdentityCommands(options: IdentityCommandsOptions): IdentityCommands {
  const { store, readModel, clock } = options;

  const commands = createCommandHandler({
    store,
    ...(options.onAppended ? { onAppended: options.onAppended } : {}),
    waitForReadModel: options.waitForReadModel,
  });

  /** Decide and append, then wait until the read model has caught up with the stream. */
  const run = <Command, Event extends DecidedEvent, State>(
    streamId: string,
    decider: Decider<Command, Event, State>,
    command: Command,
    metadata: AppendMetadata,
  ): Promise<HandleCommandResult<State>> => commands.handle(streamId, decider, command, { metadata });

  async function requireUser(userId: string, field: string): Promise<void> {
    if (!(await readModel.findUser(userId))) throw new NotFoundError(`${field}: user ${userId} not found`);
  }

  /** The project, which must exist, and a check that the user belongs to its organization. */
  async function requireMemberProject(userId: string, projectId: string, field: string): Promise<void> {
    const project = await readModel.findProject(projectId);
    if (!project) throw new NotFoundError(`${field}: project ${projectId} not found`);
    if ((await readModel.roleOf(userId, project.organizationId)) === null) {
      throw new ValidationError(
        `${field}: user ${userId} is not a member of the organization of project ${projectId}`,
      );
    }
  }

  async function checkPersonalToken(request: IssuePersonalTokenRequest): Promise<void> {
    await requireUser(request.userId, 'userId');
    for (const [index, projectId] of request.projectIds.entries()) {
      await requireMemberProject(request.userId, projectId, `projectIds[${index}]`);
    }
  }

  async function checkProjectToken(request: IssueProjectTokenRequest): Promise<void> {
    const project = await readModel.findProject(request.projectId);
    if (!project) throw new NotFoundError(`projectId: project ${request.projectId} not found`);
    await requireUser(request.createdByUserId, 'createdByUserId');
    await requireMemberProject(request.createdByUserId, request.projectId, 'createdByUserId');
  }

  return {
    async createOrganization(request, context = {}) {
      const organizationId = newId();
      const { state } = await run(
        organizationStream(organizationId),
        organizationDecider,
        {
          type: 'createOrganization',
          organizationId,
          name: request.name,
          plan: planOf(request),
          now: clock.now(),
        },
        context,
      );
      const organization = activeOrganization(state);
      return {
        id: organizationId,
        name: organization.name,
        plan: organization.plan,
        createdAt: organization.createdAt,
      };
    },

    async createProject(organizationId, request, context = {}) {
      const projectId = newId();
      const { state } = await run(
        organizationStream(organizationId),
        organizationDecider,
        {
          type: 'createProject',
          organizationId,
          projectId,
          name: request.name,
          allocation: request.allocation ?? null,
          now: clock.now(),
        },
        { ...context, projectId },
      );
      const project = activeOrganization(state).projects.find(
        (candidate) => candidate.projectId === projectId,
      );
      if (!project) throw new Error(`project ${projectId} missing after its creation`);
      return {
        id: projectId,
        name: project.name,
        organizationId,
        allocation: project.allocation,
        createdAt: project.createdAt,
      };
    },

    async createUser(request, context = {}) {
      const userId = newId();
      const { state } = await run(
        userStream(request.email),
        userDecider,
        { type: 'createUser', userId, ...request, now: clock.now() },
        context,
      );
      const { email, firstName, lastName, createdAt } = activeUser(state);
      return { id: userId, email, firstName, lastName, createdAt };
    },

    async setMembership(organizationId, userId, request, context = {}) {
      await requireUser(userId, 'userId');
      const { state } = await run(
        organizationStream(organizationId),
        organizationDecider,
        { type: 'setMembership', organizationId, userId, role: request.role, now: clock.now() },
        context,
      );
      const member = activeOrganization(state).members[userId];
      if (!member) throw new Error(`membership of ${userId} missing after it was set`);
      return { organizationId, userId, role: member.role, updatedAt: member.updatedAt };
    },

    async issueToken(request, context = {}) {
      const personal = request.kind === 'personal';
      if (personal) await checkPersonalToken(request);
      else await checkProjectToken(request);
      const tokenId = newId();
      const now = clock.now();
      const { token, secretHash } = mintToken(request.kind, tokenId);
      const { state } = await run(
        tokenStream(tokenId),
        tokenDecider,
        {
          type: 'issueToken',
          tokenId,
          kind: request.kind,
          name: request.name ?? null,
          ownerUserId: personal ? request.userId : request.createdByUserId,
          projectIds: personal ? request.projectIds : [request.projectId],
          scopes: [...(personal ? PERSONAL_TOKEN_SCOPES : (request.scopes ?? DEFAULT_PROJECT_TOKEN_SCOPES))],
          secretHash,
          expiresAt: expiryOf(request.expiresAt, now),
          now,
        },
        { ...context, projectId: personal ? null : request.projectId },
      );
      const issued = issuedToken(state);
      return {
        id: tokenId,
        token,
        kind: issued.kind,
        name: issued.name,
        scopes: await scopesOf(readModel, issued),
        projectIds: issued.projectIds,
        expiresAt: issued.expiresAt,
        createdAt: issued.createdAt,
      };
    },

    async revokeToken(tokenId, context = {}) {
      const { state } = await run(
        tokenStream(tokenId),
        tokenDecider,
        { type: 'revokeToken', tokenId, now: clock.now() },
        context,
      );
      if (state.status !== 'revoked') throw new Error(`token ${tokenId} is not revoked after its revocation`);
      return { id: tokenId, revokedAt: state.revokedAt };
    },

    async changeProjectSettings({ organizationId, projectId }, request, changedBy, context = {}) {
      const { state } = await run(
        organizationStream(organizationId),
        organizationDecider,
        {
          type: 'changeProjectSettings',
          organizationId,
          projectId,
          defaultBranch: request.defaultBranch,
          changedBy,
          now: clock.now(),
        },
        { ...context, projectId },
      );
      const project = activeOrganization(state).projects.find(
        (candidate) => candidate.projectId === projectId,
      );
      if (!project) throw new Error(`project ${projectId} missing after its settings changed`);
      return { projectId, defaultBranch: project.defaultBranch };
    },
  };
}
