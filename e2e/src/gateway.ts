import { randomBytes } from 'node:crypto';
import { AdminOrganization, AdminProject, AdminUser, IssuedToken, successEnvelope } from '@verdict/contracts';

/** A status and the JSON body (null when empty) of an answer. */
export interface Answer {
  status: number;
  body: unknown;
}

/**
 * A JSON request to a Verdict gateway with a bearer credential (a token or the admin key). It gives up
 * after 30 s, so that a server that stopped answering fails the test that asked rather than hanging it.
 *
 * @example const { status, body } = await callGateway(url, 'GET', `/api/public/v1/${projectId}/test-runs`, token);
 */
export async function callGateway(
  baseUrl: string,
  method: string,
  urlPath: string,
  bearer: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}

/**
 * A tenant made through the admin API, as an operator makes one: an organization, a project, a person
 * who owns the organization and a personal token of theirs for the project. Throws when any step fails.
 *
 * @example const { projectId, token } = await provisionProject(url, adminKey, { label: 'compose', firstName: 'Paula', lastName: 'Platform' });
 */
export async function provisionProject(
  baseUrl: string,
  adminKey: string,
  who: { label: string; firstName: string; lastName: string },
): Promise<{ projectId: string; token: string }> {
  const unique = randomBytes(6).toString('hex');
  const admin = (method: string, urlPath: string, body?: unknown) =>
    callGateway(baseUrl, method, `/admin/v1${urlPath}`, adminKey, body);
  const organization = successEnvelope(AdminOrganization).parse(
    (await admin('POST', '/organizations', { name: `${who.label} ${unique}` })).body,
  ).data;
  const project = successEnvelope(AdminProject).parse(
    (await admin('POST', `/organizations/${organization.id}/projects`, { name: `project ${unique}` })).body,
  ).data;
  const user = successEnvelope(AdminUser).parse(
    (
      await admin('POST', '/users', {
        email: `${who.label}-${unique}@example.com`,
        firstName: who.firstName,
        lastName: who.lastName,
      })
    ).body,
  ).data;
  const membership = await admin('PUT', `/organizations/${organization.id}/members/${user.id}`, {
    role: 'owner',
  });
  if (membership.status !== 200) {
    throw new Error(
      `making ${user.id} an owner answered ${membership.status}: ${JSON.stringify(membership.body)}`,
    );
  }
  const token = successEnvelope(IssuedToken).parse(
    (
      await admin('POST', '/tokens', {
        kind: 'personal',
        userId: user.id,
        name: `token ${unique}`,
        projectIds: [project.id],
      })
    ).body,
  ).data;
  return { projectId: project.id, token: token.token };
}
