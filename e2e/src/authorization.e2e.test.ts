import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bannerField, randomPort, type RunningProcess, startVerdict } from './processes';

// Issue 33, point 3: the authorization matrix. Every operation of the served public OpenAPI document (read
// at run time, so a new route joins the matrix by being declared) is called once by each of twelve
// identities, and each answer is held to what spec §5 and the operation's declaration (`security`,
// `x-roles`) say: 401 when the credential does not authenticate, 403 when it authenticates but may not do
// this, and anything else (2xx, 400, 404, 409, …: the request got past authorization) when it may. The
// bodies are minimal on purpose: the point is the authorization decision, not the work.

type Role = 'owner' | 'admin' | 'member' | 'viewer';
type Expected = 'allowed' | 401 | 403;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface Operation {
  method: Method;
  /** The path as the document gives it, prefix included: `/api/public/v1/{projectId}/…`. */
  path: string;
  /** Who may call it (`x-roles`); absent on an operation that takes no credential (the sign-in). */
  roles: Role[] | undefined;
  /** The security schemes that open it: `bearerToken`, `sessionCookie`, none. */
  schemes: string[];
  /** The content types of its body, when it takes one. */
  bodyTypes: string[];
}

/** Who calls: what the credential authenticates as, and how it travels. */
interface Caller {
  column: string;
  /** null: the credential does not authenticate (none, revoked, expired). */
  role: Role | null;
  /** False for another organization's token: it reaches no project of the seeded organization. */
  ownProject: boolean;
  /** A project token without the `public-api` scope (spec §5.2). */
  lacksScope?: boolean;
  via: 'none' | 'bearer' | 'session';
  /** For a session: whether it sends its CSRF token on unsafe methods. */
  csrf?: boolean;
  headers: Record<string, string>;
}

const PREFIX = '/api/public/v1';
const SAFE = new Set<Method>(['get']);
/** Writes that remove something go last, so that every other write still finds what it names. */
const PHASES: Array<(op: Operation) => boolean> = [
  (op) => op.method === 'get',
  (op) => op.method !== 'get' && op.method !== 'delete',
  (op) => op.method === 'delete' && op.path !== `${PREFIX}/session`,
  // Signing out ends the session the two session columns use: last of all.
  (op) => op.method === 'delete' && op.path === `${PREFIX}/session`,
];

/** What the spec and the declaration say a caller gets from an operation. */
function expectationOf(op: Operation, caller: Caller): Expected {
  // The sign-in is opened by no credential: whatever comes with it, it answers the body.
  if (op.schemes.length === 0) return 'allowed';
  // Spec §5.5: missing, invalid, expired or revoked: 401.
  if (caller.role === null) return 401;
  // Spec §5.2, §7: a project token needs the public-api scope, whatever it asks for.
  if (caller.lacksScope) return 403;
  // An operation the document opens to the session cookie only (issuing and revoking tokens).
  if (caller.via === 'bearer' && !op.schemes.includes('bearerToken')) return 403;
  // docs/web.md, CSRF: a write made with the session cookie and without the session's token.
  if (caller.via === 'session' && !caller.csrf && !SAFE.has(op.method)) return 403;
  // Spec §5.3: the project in the path must be one the token is scoped to.
  if (op.path.includes('{projectId}') && !caller.ownProject) return 403;
  // Spec §5.4, §4.9: the roles the operation declares.
  return (op.roles ?? []).includes(caller.role) ? 'allowed' : 403;
}

function operationsOf(document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}): Operation[] {
  const operations: Operation[] = [];
  for (const [opPath, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method] as
        | {
            'x-roles'?: Role[];
            security?: Array<Record<string, unknown>>;
            requestBody?: { content: Record<string, unknown> };
          }
        | undefined;
      if (operation === undefined) continue;
      operations.push({
        method,
        path: opPath,
        roles: operation['x-roles'],
        schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
        bodyTypes: Object.keys(operation.requestBody?.content ?? {}),
      });
    }
  }
  return operations;
}

/** A minimal body of the operation's first content type: enough to reach the route, not to be valid. */
function bodyOf(op: Operation): { body?: string | FormData; headers: Record<string, string> } {
  const [type] = op.bodyTypes;
  if (type === undefined) return { headers: {} };
  if (type === 'multipart/form-data') {
    const form = new FormData();
    form.append('name', 'authorization-matrix.txt');
    return { body: form, headers: {} };
  }
  if (type.endsWith('/xml')) return { body: '<testsuites/>', headers: { 'content-type': type } };
  return { body: '{}', headers: { 'content-type': 'application/json' } };
}

const classOf = (status: number): Expected | string =>
  status === 401 || status === 403
    ? status
    : status < 400 || [400, 404, 409, 413].includes(status)
      ? 'allowed'
      : String(status);

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
  body: any;
  headers: Headers;
}

describe('the authorization matrix of the public API (npm start)', () => {
  let dataDir: string;
  let verdict: RunningProcess | null = null;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-authz-'));
  });
  afterEach(async () => {
    await verdict?.stop();
    verdict = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when every operation of the served document is called by each identity, then each answer is the one spec §5 and its x-roles give', async () => {
    const started = Date.now();
    const port = randomPort();
    verdict = startVerdict('start', {
      PORT: String(port),
      VERDICT_DATA_DIR: dataDir,
      // Each request comes from an address of its own, so that the per-IP limit (spec §8) never answers.
      VERDICT_TRUST_PROXY: 'loopback',
      LOG_LEVEL: 'error',
    });
    // Generous: `npm start` first rebuilds the client packages when their sources changed.
    await verdict.waitFor('Verdict is running (embedded mode)', 180_000);
    const banner = verdict.output();
    const field = (name: string) => bannerField(banner, name);
    const [projectId, setupToken, adminKey] = [field('Project id'), field('Token'), field('Admin key')];
    const origin = `http://127.0.0.1:${port}`;
    let sent = 0;
    const call = async (
      method: string,
      url: string,
      headers: Record<string, string>,
      body?: string | FormData,
    ): Promise<Answer> => {
      sent += 1;
      const response = await fetch(`${origin}${url}`, {
        method: method.toUpperCase(),
        headers: { ...headers, 'x-forwarded-for': `10.33.${(sent >> 8) & 255}.${sent & 255}` },
        ...(body === undefined ? {} : { body }),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // A body that is not JSON (a PDF, Markdown): kept as text.
      }
      return { status: response.status, body: parsed, headers: response.headers };
    };
    const json = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', ...extra });
    const admin = async (method: string, url: string, body?: unknown) => {
      const answer = await call(
        method,
        `/admin/v1${url}`,
        json({ authorization: `Bearer ${adminKey}` }),
        body === undefined ? undefined : JSON.stringify(body),
      );
      expect(`${method} ${url}: ${answer.status}`).toMatch(/: 2\d\d$/);
      return answer.body.data;
    };
    const asSetup = async (method: string, url: string, body: unknown) => {
      const answer = await call(
        method,
        `${PREFIX}/${projectId}${url}`,
        json({ authorization: `Bearer ${setupToken}` }),
        JSON.stringify(body),
      );
      expect(`${method} ${url}: ${answer.status}`).toMatch(/: 20[01]$/);
      return answer.body.data;
    };

    // The expiring token first, so that it has expired by the time the matrix starts.
    const { id: ownerId } = ((await admin('GET', '/users')) as Array<{ id: string }>)[0]!;
    const expiresAt = new Date(Date.now() + 3_000);
    const expiring = (await admin('POST', '/tokens', {
      kind: 'personal',
      userId: ownerId,
      projectIds: [projectId],
      expiresAt: expiresAt.toISOString(),
    })) as { token: string };
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const tokenInfo = (headers: Record<string, string>) =>
      call('GET', `${PREFIX}/${projectId}/token-info`, headers);
    expect((await tokenInfo(bearer(expiring.token))).status).toBe(200);

    // The seeded organization, its members with each role, and a second organization with its own project.
    const organizations = (await admin('GET', '/organizations')) as Array<{ id: string }>;
    const organizationId = organizations[0]!.id;
    const personal = async (userId: string, projectIds = [projectId]) =>
      (await admin('POST', '/tokens', { kind: 'personal', userId, projectIds })) as {
        id: string;
        token: string;
      };
    const memberWith = async (role: Role, orgId = organizationId) => {
      const user = (await admin('POST', '/users', {
        email: `${role}-${randomUUID()}@authz.example`,
        firstName: role,
        lastName: 'Matrix',
      })) as { id: string };
      await admin('PUT', `/organizations/${orgId}/members/${user.id}`, { role });
      return user.id;
    };
    const userOf: Record<Role, string> = {
      owner: ownerId,
      admin: await memberWith('admin'),
      member: await memberWith('member'),
      viewer: await memberWith('viewer'),
    };
    const other = (await admin('POST', '/organizations', { name: 'Another organization' })) as { id: string };
    const otherProject = (await admin('POST', `/organizations/${other.id}/projects`, {
      name: 'Another project',
    })) as { id: string };
    const otherToken = await personal(await memberWith('owner', other.id), [otherProject.id]);
    const projectToken = async (scopes: string[]) =>
      (await admin('POST', '/tokens', {
        kind: 'project',
        projectId,
        // A project token acts with its creator's role (API.md): a member's, so that the owner and admin
        // routes refuse it.
        createdByUserId: userOf.member,
        scopes,
      })) as { token: string };
    const revoked = await personal(ownerId);
    expect((await tokenInfo(bearer(revoked.token))).status).toBe(200);
    await admin('DELETE', `/tokens/${revoked.id}`);

    // Two web sessions of the owner (docs/web.md), each on a token of its own: one budget each (spec §8).
    const signIn = async () => {
      const { token } = await personal(ownerId);
      const answer = await call('POST', `${PREFIX}/session`, json(), JSON.stringify({ token }));
      expect(answer.status).toBe(201);
      const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
      expect(cookie).toMatch(/^verdict_session=./);
      return { cookie, csrfToken: answer.body.data.csrfToken as string };
    };
    const [withCsrf, withoutCsrf] = [await signIn(), await signIn()];
    expect(withCsrf.csrfToken).toMatch(/./);

    // Real ids of the seeded project for the path parameters that name one (a random id elsewhere).
    const run = await asSetup('POST', '/test-runs', { branch: 'main' });
    const suite = await asSetup('POST', '/manual-suites', { name: 'Matrix suite' });
    const manualCase = await asSetup('POST', '/manual-test-cases', {
      title: 'Matrix case',
      suiteId: suite._id,
    });
    const manualRun = await asSetup('POST', '/manual-runs', {
      name: 'Matrix run',
      caseIds: [manualCase.caseId],
    });
    const release = await asSetup('POST', '/releases', { name: 'Matrix release' });
    const session = await asSetup('POST', '/sessions', { charter: 'Matrix charter', status: 'planned' });
    const throwaway = await personal(ownerId);
    const ids: Record<string, string> = {
      'test-runs/{runId}': run.id,
      'manual-suites/{suiteId}': suite._id,
      'manual-test-cases/{caseId}': manualCase.caseId,
      'manual-runs/{runId}': manualRun.runId,
      'test-cases/{runCaseId}': manualCase.caseId,
      'releases/{releaseId}': release.releaseId,
      'sessions/{sessionId}': session._id,
      // Revoked by the session that may (the last of the matrix's writes on it).
      'tokens/{tokenId}': throwaway.id,
    };
    const urlOf = (op: Operation) =>
      op.path.replace(/\{([^}]+)\}/g, (param: string, _name: string, offset: number) => {
        if (param === '{projectId}') return projectId;
        const segment = op.path.slice(0, offset).split('/').filter(Boolean).pop() ?? '';
        return encodeURIComponent(ids[`${segment}/${param}`] ?? randomUUID());
      });

    // The twelve columns, each on tokens of its own: spec §8 allows a token 100 reads and 60 writes a minute.
    const roleCaller = async (role: Role): Promise<Caller> => ({
      column: role,
      role,
      ownProject: true,
      via: 'bearer',
      headers: bearer((await personal(userOf[role])).token),
    });
    const callers: Caller[] = [
      { column: 'no token', role: null, ownProject: false, via: 'none', headers: {} },
      {
        column: 'other project',
        role: 'owner',
        ownProject: false,
        via: 'bearer',
        headers: bearer(otherToken.token),
      },
      await roleCaller('viewer'),
      await roleCaller('member'),
      await roleCaller('admin'),
      await roleCaller('owner'),
      {
        column: 'project+scope',
        role: 'member',
        ownProject: true,
        via: 'bearer',
        headers: bearer((await projectToken(['public-api'])).token),
      },
      {
        column: 'project-scope',
        role: 'member',
        ownProject: true,
        lacksScope: true,
        via: 'bearer',
        headers: bearer((await projectToken([])).token),
      },
      { column: 'revoked', role: null, ownProject: true, via: 'bearer', headers: bearer(revoked.token) },
      { column: 'expired', role: null, ownProject: true, via: 'bearer', headers: bearer(expiring.token) },
      {
        column: 'session+csrf',
        role: 'owner',
        ownProject: true,
        via: 'session',
        csrf: true,
        headers: { cookie: withCsrf.cookie, 'x-csrf-token': withCsrf.csrfToken },
      },
      {
        column: 'session-csrf',
        role: 'owner',
        ownProject: true,
        via: 'session',
        csrf: false,
        headers: { cookie: withoutCsrf.cookie },
      },
    ];

    const document = await call('GET', `${PREFIX}/openapi.json`, {});
    expect(document.status).toBe(200);
    const operations = operationsOf(document.body);
    // A document that lost its operations, or their declarations, would make the matrix vacuous.
    expect(operations.length).toBeGreaterThanOrEqual(70);
    for (const op of operations) {
      const declared = op.schemes.length === 0 || (op.roles !== undefined && op.roles.length > 0);
      expect({ op: `${op.method} ${op.path}`, declared }).toEqual({
        op: `${op.method} ${op.path}`,
        declared: true,
      });
    }

    const wait = expiresAt.getTime() + 100 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const matrixStarted = Date.now();
    const mismatches: string[] = [];
    const tally = new Map<string, Record<string, number>>();
    for (const phase of PHASES) {
      for (const op of operations.filter(phase)) {
        const url = urlOf(op);
        await Promise.all(
          callers.map(async (caller) => {
            const { body, headers } = bodyOf(op);
            const answer = await call(op.method, url, { ...caller.headers, ...headers }, body);
            const expected = expectationOf(op, caller);
            const error = typeof answer.body === 'object' ? answer.body?.error : undefined;
            // Spec §7: the refusals carry their codes (401 is named either way on the spec's pages).
            const coded =
              (answer.status === 401 && ['UNAUTHORIZED', 'AUTH_INVALID_TOKEN'].includes(error?.code)) ||
              (answer.status === 403 && error?.code === 'FORBIDDEN') ||
              ![401, 403].includes(answer.status);
            const got = coded ? classOf(answer.status) : `${answer.status} without its code`;
            const counts = tally.get(caller.column) ?? {};
            counts[String(expected)] = (counts[String(expected)] ?? 0) + 1;
            if (got !== expected) counts.mismatch = (counts.mismatch ?? 0) + 1;
            if (answer.status < 300) counts.succeeded = (counts.succeeded ?? 0) + 1;
            tally.set(caller.column, counts);
            if (got !== expected) {
              mismatches.push(
                `${op.method.toUpperCase()} ${op.path} as ${caller.column}: expected ${expected}, got ` +
                  `${answer.status} ${error?.code ?? ''} ${error?.message ?? ''}`.trim(),
              );
            }
          }),
        );
      }
    }

    const width = Math.max(...callers.map(({ column }) => column.length));
    const lines = callers.map(({ column }) => {
      const counts = tally.get(column) ?? {};
      const cell = (key: string) => String(counts[key] ?? 0).padStart(7);
      return `  ${column.padEnd(width)} ${cell('allowed')} ${cell('succeeded')} ${cell('401')} ${cell('403')} ${cell('mismatch')}`;
    });
    process.stdout.write(
      `authorization matrix: ${operations.length} operations × ${callers.length} identities = ` +
        `${operations.length * callers.length} requests in ${((Date.now() - matrixStarted) / 1000).toFixed(1)} s ` +
        `(${((Date.now() - started) / 1000).toFixed(1)} s with the start and the setup)\n` +
        `  ${'identity'.padEnd(width)} ${'allowed'.padStart(7)} ${'2xx'.padStart(7)} ${'401'.padStart(7)} ${'403'.padStart(7)} ${'wrong'.padStart(7)}\n` +
        `${lines.join('\n')}\n`,
    );
    expect(mismatches).toEqual([]);
    expect(verdict.output()).not.toContain('"unexpected error"');
  });
});
