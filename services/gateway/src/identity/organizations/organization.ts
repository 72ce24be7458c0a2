/**
 * The organization aggregate: one stream per organization holding its plan, its projects and its
 * memberships, so that the project limit and "at least one owner" are decided on one consistent state.
 * Pure: `now` and new ids come in with the command.
 */
import {
  DEFAULT_BASE_BRANCH,
  MembershipSet,
  OrganizationCreated,
  ProjectCreated,
  ProjectSettingsChanged,
  parseIdentityEvent,
  type MembershipRole,
  type OrganizationEvent,
  type Plan,
} from '@verdict/contracts';
import { ConflictError, NotFoundError, type Decider } from '@verdict/platform';

export interface ProjectState {
  projectId: string;
  name: string;
  allocation: number | null;
  createdAt: string;
  /** The base branch of runs that name none; DEFAULT_BASE_BRANCH until an owner or admin changes it. */
  defaultBranch: string;
}

export interface MemberState {
  role: MembershipRole;
  updatedAt: string;
}

export type OrganizationState =
  | { status: 'absent' }
  | {
      status: 'active';
      organizationId: string;
      name: string;
      plan: Plan;
      createdAt: string;
      projects: ProjectState[];
      members: Record<string, MemberState>;
    };

export type OrganizationCommand =
  | { type: 'createOrganization'; organizationId: string; name: string; plan: Plan; now: Date }
  | {
      type: 'createProject';
      organizationId: string;
      projectId: string;
      name: string;
      allocation: number | null;
      now: Date;
    }
  | { type: 'setMembership'; organizationId: string; userId: string; role: MembershipRole; now: Date }
  | {
      type: 'changeProjectSettings';
      organizationId: string;
      projectId: string;
      defaultBranch: string;
      changedBy: string;
      now: Date;
    };

/** The stream of one organization. */
export const organizationStream = (organizationId: string): string => `organization-${organizationId}`;

export function initialState(): OrganizationState {
  return { status: 'absent' };
}

export function evolve(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'organization.created':
      return {
        status: 'active',
        organizationId: event.data.organizationId,
        name: event.data.name,
        plan: event.data.plan,
        createdAt: event.data.createdAt,
        projects: [],
        members: {},
      };
    case 'project.created': {
      if (state.status !== 'active') return state;
      const { projectId, name, allocation, createdAt } = event.data;
      const project = { projectId, name, allocation, createdAt, defaultBranch: DEFAULT_BASE_BRANCH };
      return { ...state, projects: [...state.projects, project] };
    }
    case 'project.settings-changed': {
      if (state.status !== 'active') return state;
      const { projectId, defaultBranch } = event.data;
      const projects = state.projects.map((project) =>
        project.projectId === projectId ? { ...project, defaultBranch } : project,
      );
      return { ...state, projects };
    }
    case 'membership.set': {
      if (state.status !== 'active') return state;
      const member = { role: event.data.role, updatedAt: event.data.setAt };
      return { ...state, members: { ...state.members, [event.data.userId]: member } };
    }
  }
}

type ActiveOrganization = Extract<OrganizationState, { status: 'active' }>;

function requireOrganization(state: OrganizationState, organizationId: string): ActiveOrganization {
  if (state.status !== 'active') throw new NotFoundError(`Organization ${organizationId} not found`);
  return state;
}

function createOrganization(
  command: Extract<OrganizationCommand, { type: 'createOrganization' }>,
  state: OrganizationState,
): OrganizationEvent[] {
  // Ids are minted per request, so an existing stream means an id collision, never a retry.
  if (state.status !== 'absent')
    throw new ConflictError(`Organization ${command.organizationId} already exists`);
  return [
    OrganizationCreated.of({
      organizationId: command.organizationId,
      name: command.name,
      plan: command.plan,
      createdAt: command.now.toISOString(),
    }),
  ];
}

/** Test cases of the plan not yet reserved by a project's allocation. */
export function unallocatedPool(organization: ActiveOrganization): number {
  const allocated = organization.projects.reduce((sum, project) => sum + (project.allocation ?? 0), 0);
  return organization.plan.testCaseLimit - allocated;
}

function createProject(
  command: Extract<OrganizationCommand, { type: 'createProject' }>,
  state: OrganizationState,
): OrganizationEvent[] {
  const organization = requireOrganization(state, command.organizationId);
  if (organization.projects.some((project) => project.projectId === command.projectId)) {
    throw new ConflictError(`Project ${command.projectId} already exists`);
  }
  const { projectLimit, name: planName } = organization.plan;
  if (organization.projects.length >= projectLimit) {
    throw new ConflictError(
      `The ${planName} plan of this organization allows ${projectLimit} project(s); all are in use`,
      'PROJECT_LIMIT_REACHED',
    );
  }
  const pool = unallocatedPool(organization);
  if (command.allocation !== null && command.allocation > pool) {
    throw new ConflictError(
      `allocation: ${command.allocation} exceeds the organization's unallocated test cases (${pool})`,
    );
  }
  return [
    ProjectCreated.of({
      projectId: command.projectId,
      organizationId: organization.organizationId,
      name: command.name,
      allocation: command.allocation,
      createdAt: command.now.toISOString(),
    }),
  ];
}

function setMembership(
  command: Extract<OrganizationCommand, { type: 'setMembership' }>,
  state: OrganizationState,
): OrganizationEvent[] {
  const organization = requireOrganization(state, command.organizationId);
  const previousRole = organization.members[command.userId]?.role ?? null;
  // PUT is idempotent: the same role again changes nothing and records nothing.
  if (previousRole === command.role) return [];
  const owners = Object.values(organization.members).filter((member) => member.role === 'owner').length;
  if (previousRole === 'owner' && owners === 1) {
    throw new ConflictError('An organization must keep at least one owner: make another member owner first');
  }
  return [
    MembershipSet.of({
      organizationId: organization.organizationId,
      userId: command.userId,
      role: command.role,
      previousRole,
      setAt: command.now.toISOString(),
    }),
  ];
}

function changeProjectSettings(
  command: Extract<OrganizationCommand, { type: 'changeProjectSettings' }>,
  state: OrganizationState,
): OrganizationEvent[] {
  const organization = requireOrganization(state, command.organizationId);
  const project = organization.projects.find((candidate) => candidate.projectId === command.projectId);
  if (!project) throw new NotFoundError(`Project ${command.projectId} not found`);
  // The same settings again change nothing and record nothing.
  if (project.defaultBranch === command.defaultBranch) return [];
  return [
    ProjectSettingsChanged.of({
      projectId: command.projectId,
      organizationId: organization.organizationId,
      defaultBranch: command.defaultBranch,
      changedBy: command.changedBy,
      changedAt: command.now.toISOString(),
    }),
  ];
}

export function decide(command: OrganizationCommand, state: OrganizationState): OrganizationEvent[] {
  switch (command.type) {
    case 'createOrganization':
      return createOrganization(command, state);
    case 'createProject':
      return createProject(command, state);
    case 'setMembership':
      return setMembership(command, state);
    case 'changeProjectSettings':
      return changeProjectSettings(command, state);
  }
}

function parse(event: { type: string; version: number; data: unknown }): OrganizationEvent {
  const parsed = parseIdentityEvent(event);
  if (
    parsed.type === 'organization.created' ||
    parsed.type === 'project.created' ||
    parsed.type === 'project.settings-changed' ||
    parsed.type === 'membership.set'
  ) {
    return parsed;
  }
  throw new Error(`${parsed.type} does not belong to an organization stream`);
}

/**
 * The organization decider, for handleCommand.
 *
 * @example await handleCommand(store, organizationStream(id), organizationDecider, { type: 'createProject', … });
 */
export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState,
  evolve,
  decide,
  parse,
};
