import { ProjectMember } from '@verdict/contracts';
import { uniqueName } from '@verdict/platform/testing';
import { admin, CLUSTERS, provision, gatewayUnderTest } from '../testing';

interface Listed {
  status: number;
  body: {
    data?: unknown;
    pagination?: { page: number; limit: number; total: number; hasNext: boolean; hasPrev: boolean };
    error?: { code: string; message: string };
  };
}

async function get(url: string, token: string): Promise<Listed> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as Listed['body'] };
}

describe.each(CLUSTERS)("a project's members, %s", (_name, makeCluster) => {
  const at = gatewayUnderTest(makeCluster);

  /** A user made a member of the organization with `role`. */
  async function member(organizationId: string, firstName: string, lastName: string, role: string) {
    const user = await admin<{ id: string; email: string }>(
      at.url,
      'POST',
      '/users',
      { email: `${uniqueName('member')}@example.com`, firstName, lastName },
      201,
    );
    await admin(at.url, 'PUT', `/organizations/${organizationId}/members/${user.id}`, { role }, 200);
    return user;
  }

  it("when a viewer lists the project's members, then every member of its organization is listed by name with their role, and nobody else", async () => {
    const { projectId, organizationId, userId, token } = await provision(at.url, 'viewer');
    const grace = await member(organizationId, 'Grace', 'Hopper', 'member');
    const alan = await member(organizationId, 'alan', 'Turing', 'admin');
    const elsewhere = await provision(at.url, 'owner');

    const answer = await get(`${at.base}/${projectId}/members`, token.token);
    expect(answer.status).toBe(200);
    const members = ProjectMember.array().parse(answer.body.data);
    expect(members.map((m) => [m.userId, m.firstName, m.role])).toEqual([
      [userId, 'Ada', 'viewer'],
      [alan.id, 'alan', 'admin'],
      [grace.id, 'Grace', 'member'],
    ]);
    expect(members[2]?.email).toBe(grace.email);
    expect(members.map((m) => m.userId)).not.toContain(elsewhere.userId);
    expect(answer.body.pagination).toEqual({ page: 1, limit: 20, total: 3, hasNext: false, hasPrev: false });
  });

  it('when the list is searched or paged, then only the matching members of that page come, with the total', async () => {
    const { projectId, organizationId, token } = await provision(at.url, 'member');
    await member(organizationId, 'Grace', 'Hopper', 'member');
    await member(organizationId, 'Barbara', 'Liskov', 'viewer');
    await member(organizationId, 'Percent%', 'Sign', 'viewer');

    const searched = await get(`${at.base}/${projectId}/members?q=HOP`, token.token);
    expect(
      ProjectMember.array()
        .parse(searched.body.data)
        .map((m) => m.lastName),
    ).toEqual(['Hopper']);
    const full = await get(
      `${at.base}/${projectId}/members?q=${encodeURIComponent('grace hopper')}`,
      token.token,
    );
    expect(
      ProjectMember.array()
        .parse(full.body.data)
        .map((m) => m.lastName),
    ).toEqual(['Hopper']);
    // `%` is a character to find, not a wildcard.
    const literal = await get(`${at.base}/${projectId}/members?q=${encodeURIComponent('t%')}`, token.token);
    expect(
      ProjectMember.array()
        .parse(literal.body.data)
        .map((m) => m.lastName),
    ).toEqual(['Sign']);

    const second = await get(`${at.base}/${projectId}/members?page=2&limit=2`, token.token);
    expect(
      ProjectMember.array()
        .parse(second.body.data)
        .map((m) => m.firstName),
    ).toEqual(['Grace', 'Percent%']);
    expect(second.body.pagination).toMatchObject({ total: 4, hasNext: false, hasPrev: true });
    const past = await get(`${at.base}/${projectId}/members?page=9&limit=2`, token.token);
    expect([past.body.data, past.body.pagination?.total]).toEqual([[], 4]);
  });

  it('when the query is malformed, or the token does not reach the project, then 400 and 403 with the envelope', async () => {
    const { projectId, token } = await provision(at.url, 'member');
    const other = await provision(at.url, 'owner');
    for (const query of ['limit=101', 'page=0', 'q=', 'role=admin']) {
      const answer = await get(`${at.base}/${projectId}/members?${query}`, token.token);
      expect([answer.status, answer.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    const refused = await get(`${at.base}/${other.projectId}/members`, token.token);
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'FORBIDDEN']);
  });
});
