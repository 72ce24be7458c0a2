import {
  FREE_PLAN,
  MembershipSet,
  OrganizationCreated,
  ProjectCreated,
  ProjectSettingsChanged,
  type Plan,
} from '@verdict/contracts';
import { given } from '@verdict/platform/testing';
import { organizationDecider } from './organization';

const now = new Date('2026-03-01T10:00:00.000Z');
const organizationId = 'org-1';
const team: Plan = {
  name: 'team',
  testCaseLimit: 100_000,
  projectLimit: 3,
  periodStart: null,
  periodEnd: null,
};

const created = (plan: Plan = FREE_PLAN) =>
  OrganizationCreated.of({ organizationId, name: 'Acme', plan, createdAt: '2026-02-01T00:00:00.000Z' });
const project = (projectId: string, allocation: number | null = null) =>
  ProjectCreated.of({
    projectId,
    organizationId,
    name: projectId,
    allocation,
    createdAt: '2026-02-02T00:00:00.000Z',
  });
const member = (
  userId: string,
  role: 'owner' | 'admin' | 'member' | 'viewer',
  previousRole: typeof role | null = null,
) => MembershipSet.of({ organizationId, userId, role, previousRole, setAt: '2026-02-03T00:00:00.000Z' });

describe('organization decider: project settings', () => {
  const change = (defaultBranch: string, projectId = 'p-1') =>
    ({
      type: 'changeProjectSettings',
      organizationId,
      projectId,
      defaultBranch,
      changedBy: 'u-1',
      now,
    }) as const;
  const changed = (defaultBranch: string) =>
    ProjectSettingsChanged.of({
      projectId: 'p-1',
      organizationId,
      defaultBranch,
      changedBy: 'u-1',
      changedAt: now.toISOString(),
    });

  it('when the default branch of a project changes, then project.settings-changed records the new one', () => {
    given(organizationDecider, [created(team), project('p-1')])
      .when(change('develop'))
      .then([changed('develop')]);
  });

  it('when the default branch is set to what it is (main at first), then nothing is recorded', () => {
    given(organizationDecider, [created(team), project('p-1')])
      .when(change('main'))
      .then([]);
    given(organizationDecider, [created(team), project('p-1'), changed('develop')])
      .when(change('develop'))
      .then([]);
  });

  it('when the project is not in the organization, then NOT_FOUND', () => {
    given(organizationDecider, [created(team), project('p-1')])
      .when(change('develop', 'p-2'))
      .thenRefuses({ code: 'NOT_FOUND' });
  });
});

describe('organization decider', () => {
  it('when an organization is created, then organization.created records its name and plan', () => {
    given(organizationDecider, [])
      .when({ type: 'createOrganization', organizationId, name: 'Acme', plan: team, now })
      .then([
        OrganizationCreated.of({ organizationId, name: 'Acme', plan: team, createdAt: now.toISOString() }),
      ]);
  });

  it('when an organization id is taken, then creating it again is a CONFLICT', () => {
    given(organizationDecider, [created()])
      .when({ type: 'createOrganization', organizationId, name: 'Other', plan: FREE_PLAN, now })
      .thenRefuses({ code: 'CONFLICT' });
  });

  it('when a project is created within the plan, then project.created names its organization and allocation', () => {
    given(organizationDecider, [created(team)])
      .when({ type: 'createProject', organizationId, projectId: 'p-1', name: 'Web', allocation: 2_000, now })
      .then([
        ProjectCreated.of({
          projectId: 'p-1',
          organizationId,
          name: 'Web',
          allocation: 2_000,
          createdAt: now.toISOString(),
        }),
      ]);
  });

  it('when the free tier already has its 1 project, then another is refused with PROJECT_LIMIT_REACHED', () => {
    given(organizationDecider, [created(FREE_PLAN), project('p-1')])
      .when({
        type: 'createProject',
        organizationId,
        projectId: 'p-2',
        name: 'Second',
        allocation: null,
        now,
      })
      .thenRefuses({ code: 'PROJECT_LIMIT_REACHED', message: /free plan .* 1 project/ });
  });

  it('when a plan allows 3 projects and has 2, then a third is accepted and a fourth refused', () => {
    const history = [created(team), project('p-1'), project('p-2')];
    given(organizationDecider, history)
      .when({ type: 'createProject', organizationId, projectId: 'p-3', name: 'Third', allocation: null, now })
      .then([expect.objectContaining({ type: 'project.created' })]);
    given(organizationDecider, [...history, project('p-3')])
      .when({
        type: 'createProject',
        organizationId,
        projectId: 'p-4',
        name: 'Fourth',
        allocation: null,
        now,
      })
      .thenRefuses({ code: 'PROJECT_LIMIT_REACHED' });
  });

  it('when an allocation exceeds the test cases not yet allocated, then it is a CONFLICT naming allocation', () => {
    given(organizationDecider, [created(team), project('p-1', 99_000)])
      .when({ type: 'createProject', organizationId, projectId: 'p-2', name: 'Big', allocation: 1_001, now })
      .thenRefuses({ code: 'CONFLICT', message: /^allocation: .*\(1000\)/ });
  });

  it('when the organization does not exist, then creating a project or a membership is NOT_FOUND', () => {
    given(organizationDecider, [])
      .when({ type: 'createProject', organizationId, projectId: 'p-1', name: 'Web', allocation: null, now })
      .thenRefuses({ code: 'NOT_FOUND' });
    given(organizationDecider, [])
      .when({ type: 'setMembership', organizationId, userId: 'u-1', role: 'owner', now })
      .thenRefuses({ code: 'NOT_FOUND' });
  });

  it('when a role is set, then membership.set records it with the role it replaces', () => {
    given(organizationDecider, [created(), member('u-1', 'owner'), member('u-2', 'viewer')])
      .when({ type: 'setMembership', organizationId, userId: 'u-2', role: 'member', now })
      .then([
        MembershipSet.of({
          organizationId,
          userId: 'u-2',
          role: 'member',
          previousRole: 'viewer',
          setAt: now.toISOString(),
        }),
      ]);
  });

  it('when the same role is set again, then nothing is recorded', () => {
    given(organizationDecider, [created(), member('u-1', 'admin')])
      .when({ type: 'setMembership', organizationId, userId: 'u-1', role: 'admin', now })
      .then([]);
  });

  it('when the only owner would be demoted, then it is a CONFLICT; with a second owner it is allowed', () => {
    given(organizationDecider, [created(), member('u-1', 'owner')])
      .when({ type: 'setMembership', organizationId, userId: 'u-1', role: 'admin', now })
      .thenRefuses({ code: 'CONFLICT', message: /at least one owner/ });
    given(organizationDecider, [created(), member('u-1', 'owner'), member('u-2', 'owner')])
      .when({ type: 'setMembership', organizationId, userId: 'u-1', role: 'admin', now })
      .then([expect.objectContaining({ type: 'membership.set' })]);
  });

  it('when a stored event is read back, then parse accepts organization events and refuses others', () => {
    const parse = organizationDecider.parse;
    expect(parse?.(JSON.parse(JSON.stringify(project('p-1'))))).toEqual(project('p-1'));
    expect(() =>
      parse?.({ type: 'token.revoked', version: 1, data: { tokenId: 't', revokedAt: now.toISOString() } }),
    ).toThrow(/does not belong/);
    expect(() => parse?.({ type: 'project.created', version: 1, data: { projectId: 'p-1' } })).toThrow();
  });
});
