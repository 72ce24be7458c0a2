import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  AddResultsResponse,
  AdminMembership,
  AdminOrganization,
  AdminProject,
  AdminUser,
  ErrorEnvelope,
  IssuedToken,
  RevokedToken,
  RunSummary,
  successEnvelope,
  TokenInfo,
} from '@verdict/contracts';
import { isProcessAlive } from '@verdict/platform';
import { randomPort, type RunningProcess, startVerdict } from './processes';
import { checkFailureAnalysis } from './failureAnalysis';

// `npm run start:distributed` is `node scripts/run.cjs start-distributed`; the test runs that exactly. It
// needs real PostgreSQL, Kafka and Redis: the launcher provisions them through infra/local (or uses those
// that DATABASE_URL, KAFKA_BROKERS and REDIS_URL name), and when it cannot, it exits and this test fails.

// Generous: a first run may install Kafka, and a consumer group join can take seconds.
const READY_TIMEOUT_MS = 180_000;

interface Answer {
  status: number;
  body: unknown;
}

/** A tiny HTTP client of one gateway: JSON in, status and parsed JSON out. */
function clientOf(baseUrl: string) {
  return async (
    method: string,
    urlPath: string,
    options: { bearer: string; body?: unknown },
  ): Promise<Answer> => {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${options.bearer}`,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  };
}

/** The pid the launcher reports for the service it started (`[verdict] started gateway (pid 123)`). */
function pidOf(launcher: RunningProcess, service: string): number {
  const match = new RegExp(`started ${service} \\(pid (\\d+)\\)`).exec(launcher.output());
  if (!match?.[1])
    throw new Error(`the launcher did not report the ${service} pid; output:\n${launcher.output()}`);
  return Number(match[1]);
}

describe('the distributed mode (npm run start:distributed)', () => {
  let launcher: RunningProcess | undefined;

  afterEach(async () => {
    // A failed test must not leave the launcher (and through it the gateway) running.
    if (launcher && launcher.child.exitCode === null && launcher.child.signalCode === null) {
      await launcher.stop('SIGINT');
    }
    launcher = undefined;
  });

  it('when started, then the admin API provisions a token that token-info accepts under both prefixes, a run is ingested through the gateway into the test-results process and read back in the response cycle of its 202 (through /mcp too), failure analysis (verdicts, comparison, error groups, suspects) answers across the processes, the web app and its session work, the token (and its session, and /mcp) is refused once revoked, and Ctrl-C stops every process', async () => {
    const port = randomPort();
    const adminKey = `e2e-admin-${randomBytes(12).toString('hex')}`;
    launcher = startVerdict('start-distributed', {
      PORT: String(port),
      VERDICT_TEST_RESULTS_PORT: String(randomPort()),
      VERDICT_ADMIN_KEY: adminKey,
      VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    });
    await launcher.waitFor('Verdict is running (distributed mode)', READY_TIMEOUT_MS);
    const gatewayPid = pidOf(launcher, 'gateway');
    const testResultsPid = pidOf(launcher, 'test-results');
    const projectorPid = pidOf(launcher, 'test-results-projector');
    const baseUrl = `http://127.0.0.1:${port}`;
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);

    const call = clientOf(baseUrl);
    const admin = (method: string, urlPath: string, body?: unknown) =>
      call(method, `/admin/v1${urlPath}`, { bearer: adminKey, body });
    const unique = randomBytes(6).toString('hex');

    const organizationAnswer = await admin('POST', '/organizations', { name: `e2e distributed ${unique}` });
    expect(organizationAnswer.status).toBe(201);
    const organization = successEnvelope(AdminOrganization).parse(organizationAnswer.body).data;

    const projectAnswer = await admin('POST', `/organizations/${organization.id}/projects`, {
      name: `e2e project ${unique}`,
    });
    expect(projectAnswer.status).toBe(201);
    const project = successEnvelope(AdminProject).parse(projectAnswer.body).data;

    const userAnswer = await admin('POST', '/users', {
      email: `e2e-${unique}@example.com`,
      firstName: 'Dana',
      lastName: 'Distributed',
    });
    expect(userAnswer.status).toBe(201);
    const user = successEnvelope(AdminUser).parse(userAnswer.body).data;

    const membershipAnswer = await admin('PUT', `/organizations/${organization.id}/members/${user.id}`, {
      role: 'owner',
    });
    expect(membershipAnswer.status).toBe(200);
    expect(successEnvelope(AdminMembership).parse(membershipAnswer.body).data.role).toBe('owner');

    const tokenAnswer = await admin('POST', '/tokens', {
      kind: 'personal',
      userId: user.id,
      name: `e2e token ${unique}`,
      projectIds: [project.id],
    });
    expect(tokenAnswer.status).toBe(201);
    const token = successEnvelope(IssuedToken).parse(tokenAnswer.body).data;

    for (const prefix of ['/api/public/v1', '/api/v1/public']) {
      const answer = await call('GET', `${prefix}/${project.id}/token-info`, { bearer: token.token });
      expect({ prefix, status: answer.status }).toEqual({ prefix, status: 200 });
      const info = successEnvelope(TokenInfo).parse(answer.body).data;
      expect(info.id).toBe(token.id);
      expect(info.projectName).toBe(project.name);
      expect(info.scopes).toContain(`organizations/${organization.id}/projects/${project.id}`);
    }

    // Ingest crosses two processes: the gateway forwards to the test-results service with its JWT.
    const runs = `/api/public/v1/${project.id}/test-runs`;
    const started = await call('POST', runs, {
      bearer: token.token,
      body: { ciRunId: `ci-${unique}`, branch: 'main' },
    });
    expect(started.status).toBe(201);
    const run = successEnvelope(RunSummary).parse(started.body).data;
    const result = {
      file: 'tests/e2e.spec.ts',
      titlePath: ['distributed', 'ingests'],
      attempt: 0,
      status: 'passed',
      durationMs: 42,
      startedAt: new Date().toISOString(),
    };
    const added = await call('POST', `${runs}/${run.id}/results`, {
      bearer: token.token,
      body: { results: [result] },
    });
    expect(added.status).toBe(202);
    expect(successEnvelope(AddResultsResponse).parse(added.body).data).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    // The runs read model is written in the append's transaction: the read right after the 202 shows it.
    const current = await call('GET', `${runs}/${run.id}`, { bearer: token.token });
    expect(current.status).toBe(200);
    expect((current.body as { data: { stats: { total: number } } }).data.stats.total).toBe(1);
    const finished = await call('POST', `${runs}/${run.id}/finish`, { bearer: token.token, body: {} });
    expect(successEnvelope(RunSummary).parse(finished.body).data.status).toBe('finished');
    const late = await call('POST', `${runs}/${run.id}/results`, {
      bearer: token.token,
      body: { results: [result] },
    });
    expect(late.status).toBe(409);
    // The run detail after the finish, read through the gateway like any client's.
    const deadline = Date.now() + 30_000;
    let total = 0;
    while (total < 1 && Date.now() < deadline) {
      const detail = await call('GET', `${runs}/${run.id}`, { bearer: token.token });
      if (detail.status === 200)
        total = (detail.body as { data: { stats: { total: number } } }).data.stats.total;
      if (total < 1) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(total).toBe(1);

    // Failure analysis crosses the same processes: verdicts, comparison, error groups, suspect commits.
    await checkFailureAnalysis(async (method, urlPath, body) => {
      const answer = await call(method, urlPath, { bearer: token.token, body });
      return { status: answer.status, body: answer.body };
    }, project.id);

    // The web app: served by the gateway process, its session kept in Redis and judged by its token.
    const page = await fetch(`${baseUrl}/projects/${project.id}/runs/${run.id}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect((await fetch(`${baseUrl}/trace-viewer/`)).status).toBe(200);
    const signIn = await fetch(`${baseUrl}/api/public/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: token.token }),
    });
    expect(signIn.status).toBe(201);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const withCookie = (urlPath: string) => fetch(`${baseUrl}${urlPath}`, { headers: { cookie } });
    expect((await withCookie(`${runs}/${run.id}`)).status).toBe(200);
    // The gateway serves MCP at /mcp: its tools read the run back through this gateway with the token.
    const mcpUrl = new URL(`${baseUrl}/mcp?project=${project.id}`);
    const mcp = new Client({ name: 'e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(mcpUrl, {
        requestInit: { headers: { authorization: `Bearer ${token.token}` } },
      }),
    );
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toContain('record_manual_result');
    const summary = (await mcp.callTool({ name: 'get_run', arguments: { runId: run.id } })) as {
      content: { text: string }[];
    };
    expect(summary.content[0]?.text).toContain(`## Run #${run.counter} \`${run.id}\`: passed`);
    await mcp.close();

    const revokeAnswer = await admin('DELETE', `/tokens/${token.id}`);
    expect(revokeAnswer.status).toBe(200);
    expect(successEnvelope(RevokedToken).parse(revokeAnswer.body).data.id).toBe(token.id);

    const refused = await call('GET', `/api/public/v1/${project.id}/token-info`, { bearer: token.token });
    expect(refused.status).toBe(401);
    expect(ErrorEnvelope.parse(refused.body).error.code).toBe('UNAUTHORIZED');
    expect((await withCookie(`${runs}/${run.id}`)).status).toBe(401);
    const mcpRefused = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcpRefused.status).toBe(401);

    expect(await launcher.stop('SIGINT')).toBe(0);
    expect(isProcessAlive(gatewayPid)).toBe(false);
    expect(isProcessAlive(testResultsPid)).toBe(false);
    expect(isProcessAlive(projectorPid)).toBe(false);
  });
});
