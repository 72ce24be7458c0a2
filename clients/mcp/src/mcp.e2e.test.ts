import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createVerdictAdminClient, createVerdictClient, unwrap, type ResultItem } from '@verdict/client';
import { ensureNode18 } from '../../../e2e/src/node18';
import { randomPort, repoRoot, startProcess, type RunningProcess } from '../../../e2e/src/processes';

// @verdict/mcp as agents get it, driven by the official SDK's own Client: over stdio, the package packed
// with `npm pack` and installed alone (with the @verdict/client it depends on) and started as its
// `verdict-mcp` command, as `npx @verdict/mcp` starts it; over Streamable HTTP, the /mcp endpoint of a
// real `npm start`. Both against the same server and data, ingested through the public API: a run with
// failures, a flaky test and a screenshot, its predecessor, a run with 200 failures, a manual case and run.

const packageDir = path.join(repoRoot, 'clients', 'mcp');
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

type Kind = 'stdio' | 'http';

const READ_TOOLS = [
  'list_runs',
  'get_run',
  'get_failure_context',
  'compare_runs',
  'list_errors',
  'get_error_group',
  'get_test_history',
  'find_flaky_tests',
  'search_tests',
  'get_analytics_summary',
  'get_gate',
  'list_quarantine',
  'list_manual_cases',
  'get_manual_case',
  'get_manual_run',
];
const WRITE_TOOLS = ['record_manual_result', 'create_manual_case', 'quarantine_test', 'lift_quarantine'];

interface Seeded {
  url: string;
  project: string;
  owner: string;
  /** An admin's token: owners and admins set the gate rules. */
  admin: string;
  viewer: string;
  viewerProjectToken: string;
  /** Tokens of a member, one per purpose, so that no test spends another's rate limit. */
  member: () => Promise<{ id: string; token: string }>;
  /** The member's user id and e-mail address (a quarantine's owner). */
  memberUser: { id: string; email: string };
  revoke: (tokenId: string) => Promise<void>;
  run: { id: string; previousId: string; largeId: string };
  cases: { login: string; flaky: string };
  manual: { caseKey: string; runKey: string; runCaseCount: number };
}

let scratch: string;
let dataDir: string;
let verdict: RunningProcess;
let seeded: Seeded;
let cliPath: string;
let node18: string;

/** Each HTTP client's own address (the server trusts the loopback proxy): no test spends another's per-IP budget. */
let nextAddress = 1;
const clientAddress = () => `10.23.0.${nextAddress++}`;

interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

async function connect(kind: Kind, token: string, options: { node?: string } = {}): Promise<Connected> {
  const client = new Client({ name: 'verdict-mcp-e2e', version: '1.0.0' });
  let stderr = '';
  if (kind === 'stdio') {
    const transport = new StdioClientTransport({
      command: options.node ?? process.execPath,
      args: [cliPath],
      env: {
        PATH: process.env.PATH ?? '',
        VERDICT_URL: seeded.url,
        VERDICT_TOKEN: token,
        VERDICT_PROJECT: seeded.project,
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport).catch((error: Error) => {
      throw Object.assign(error, { stderr: () => stderr });
    });
  } else {
    const transport = new StreamableHTTPClientTransport(
      new URL(`${seeded.url}/mcp?project=${seeded.project}`),
      {
        requestInit: { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': clientAddress() } },
      },
    );
    await client.connect(transport);
  }
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The text of a tool call's answer, and whether it is a tool error. */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text?: string }[];
    isError?: boolean;
  };
  return { text: result.content.map((part) => part.text ?? '').join('\n'), isError: result.isError === true };
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The data the tools are asked about, ingested through the public API. */
async function seed(url: string, owner: string, project: string, adminKey: string): Promise<Seeded> {
  const api = createVerdictClient({ baseUrl: url, token: owner, project });
  const admin = createVerdictAdminClient({ baseUrl: url, adminKey });
  const organizationId = unwrap(await admin.api.GET('/organizations', {})).data[0]!.id;
  const user = async (role: 'viewer' | 'member' | 'admin', name: string) => {
    const created = unwrap(
      await admin.api.POST('/users', {
        body: { email: `${name}@example.com`, firstName: name, lastName: 'Tester' },
      }),
    ).data;
    unwrap(
      await admin.api.PUT('/organizations/{organizationId}/members/{userId}', {
        params: { path: { organizationId, userId: created.id } },
        body: { role },
      }),
    );
    return created.id;
  };
  const personalToken = async (userId: string) =>
    unwrap(await admin.api.POST('/tokens', { body: { kind: 'personal', userId, projectIds: [project] } }))
      .data;
  const viewerId = await user('viewer', 'vera');
  const memberId = await user('member', 'max');
  const adminId = await user('admin', 'ada');

  const now = () => new Date().toISOString();
  const result = (
    titlePath: string[],
    attempt: number,
    status: ResultItem['status'],
    extra: Partial<ResultItem> = {},
  ): ResultItem => ({
    file: `tests/${titlePath[0]}.spec.ts`,
    titlePath,
    project: 'chromium',
    attempt,
    status,
    durationMs: 120 + attempt,
    startedAt: now(),
    location: { file: `tests/${titlePath[0]}.spec.ts`, line: 12, column: 3 },
    ...extra,
  });
  const serverError = (line: number) => ({
    error: {
      message: 'Error: expected status 401, got 500',
      stack: `Error: expected status 401, got 500\n    at tests/login.spec.ts:${line}:5`,
      location: { file: 'tests/login.spec.ts', line, column: 5 },
    },
  });

  const previous = (await api.startRun({ ciRunId: 'build-1', branch: 'main' })).run;
  await api.addResults(previous.id, [
    result(['login', 'refuses a wrong password'], 0, 'failed', serverError(14)),
    result(['checkout', 'pays by card'], 0, 'passed'),
  ]);
  await api.finishRun(previous.id);

  const run = (
    await api.startRun({
      ciRunId: 'build-2',
      branch: 'main',
      commit: { sha: 'a1b2c3d4e5f6a7b8c9d0', message: 'Make login stricter' },
    })
  ).run;
  const screenshot = await api.uploadArtifact(run.id, {
    data: new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    name: 'login-failure.png',
    contentType: 'image/png',
  });
  await api.addResults(run.id, [
    result(['login', 'refuses a wrong password'], 0, 'failed', {
      ...serverError(14),
      steps: [
        { title: 'fill the password', category: 'pw:api', durationMs: 30 },
        {
          title: 'expect status 401',
          category: 'expect',
          durationMs: 5,
          error: { message: 'expected status 401, got 500' },
        },
      ],
      stdout: ['POST /login -> 500 Internal Server Error\n'],
      attachments: [{ name: 'screenshot', contentType: 'image/png', artifactId: screenshot.id }],
    }),
    result(['cart', 'keeps items after login'], 0, 'failed', serverError(31)),
    result(['search', 'suggests products'], 0, 'failed', {
      error: { message: 'TimeoutError: locator.click: Timeout 5000ms exceeded.' },
    }),
    result(['search', 'suggests products'], 1, 'passed'),
    result(['checkout', 'pays by card'], 0, 'passed'),
    result(['profile', 'edits the avatar'], 0, 'skipped'),
  ]);
  await api.finishRun(run.id, { status: 'failed' });

  const large = (await api.startRun({ ciRunId: 'build-3', branch: 'release' })).run;
  await api.addResults(
    large.id,
    Array.from({ length: 200 }, (_, i) =>
      result([`catalog-${i % 8}`, `renders product ${i}`], 0, 'failed', {
        error: {
          message: `Error: ${['price missing', 'image 404', 'layout shift'][i % 3]} on product ${i}\n    at render (src/product.ts:${i}:1)`,
        },
      }),
    ),
  );
  await api.finishRun(large.id);

  const detail = await until(
    'the run read back',
    () => api.getRun(run.id, { include: 'specs' }),
    (d) => d.stats.total === 5,
  );
  const caseOf = (title: string) =>
    detail.specs!.flatMap((spec) => spec.tests).find((test) => test.title === title)!.testCaseId;
  // The analytics read models (explorer, summary) follow the runs asynchronously.
  await until(
    'analytics to count the three runs and the flaky test',
    async () =>
      unwrap(
        await api.api.GET('/{projectId}/analytics/summary', {
          params: { path: { projectId: project }, query: { dateRange: '7d' } },
        }),
      ).data,
    (summary) => summary.metrics.totalRuns === 3 && summary.uniqueFlakyTests.length > 0,
  );

  const manualCase = unwrap(
    await api.api.POST('/{projectId}/manual-test-cases', {
      params: { path: { projectId: project } },
      body: {
        title: 'Checkout refuses an expired card',
        priority: 'high',
        steps: [
          { action: 'Add a product to the cart', expectedResult: 'The cart shows 1 item' },
          {
            action: 'Pay with card 4000 0000 0000 0069',
            data: 'expiry 01/20',
            expectedResult: 'Payment is refused: card expired',
          },
        ],
        tags: ['payments'],
      },
    }),
  ).data;
  const manualRun = unwrap(
    await api.api.POST('/{projectId}/manual-runs', {
      params: { path: { projectId: project } },
      body: { name: 'Release 2.0 smoke', caseIds: [manualCase._id] },
    }),
  ).data;

  return {
    url,
    project,
    owner,
    admin: (await personalToken(adminId)).token,
    viewer: (await personalToken(viewerId)).token,
    viewerProjectToken: unwrap(
      await admin.api.POST('/tokens', {
        body: { kind: 'project', projectId: project, createdByUserId: viewerId, scopes: ['public-api'] },
      }),
    ).data.token,
    member: () => personalToken(memberId),
    memberUser: { id: memberId, email: 'max@example.com' },
    revoke: async (tokenId) => {
      unwrap(await admin.api.DELETE('/tokens/{tokenId}', { params: { path: { tokenId } } }));
    },
    run: { id: run.id, previousId: previous.id, largeId: large.id },
    cases: { login: caseOf('refuses a wrong password'), flaky: caseOf('suggests products') },
    manual: { caseKey: manualCase.caseId, runKey: manualRun.runId, runCaseCount: 1 },
  };
}

beforeAll(async () => {
  if (!existsSync(path.join(packageDir, 'dist', 'cli.js'))) {
    throw new Error('clients/mcp is not built: run `npm run build:clients` (npm test builds it)');
  }
  scratch = mkdtempSync(path.join(tmpdir(), 'verdict-mcp-user-'));
  dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-mcp-data-'));
  const port = randomPort();
  verdict = startProcess(process.execPath, [path.join(repoRoot, 'scripts/run.cjs'), 'start'], {
    PORT: String(port),
    VERDICT_DATA_DIR: dataDir,
    // As behind a proxy on this machine: each HTTP client of the tests names its own address.
    VERDICT_TRUST_PROXY: 'loopback',
    LOG_LEVEL: 'warn',
  });
  // Packed as built, installed as a user's npm would: @verdict/mcp with the @verdict/client it depends on.
  const pack = (dir: string) =>
    (
      JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], dir)) as {
        filename: string;
      }[]
    )[0]!.filename;
  const tarballs = [pack(path.join(repoRoot, 'clients', 'client')), pack(packageDir)];
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'agent-host', private: true }));
  npm(
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...tarballs.map((file) => path.join(scratch, file)),
    ],
    scratch,
  );
  cliPath = path.join(scratch, 'node_modules', '@verdict', 'mcp', 'dist', 'cli.js');
  node18 = ensureNode18();
  await verdict.waitFor(`http://localhost:${port}`, 120_000);
  const output = verdict.output();
  seeded = await seed(
    `http://127.0.0.1:${port}`,
    /Token:\s+(svc_pat_\S+)/.exec(output)![1]!,
    /Project id:\s+(\S+)/.exec(output)![1]!,
    /Admin key:\s+(\S+)/.exec(output)![1]!,
  );
});

afterAll(async () => {
  await verdict?.stop();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('@verdict/mcp as installed from its tarball', () => {
  it('when installed, then it brings its command, built code, types, README and license, and needs no unpublished package', () => {
    const installed = JSON.parse(
      readFileSync(path.join(scratch, 'node_modules', '@verdict', 'mcp', 'package.json'), 'utf8'),
    ) as {
      bin: Record<string, string>;
      engines: { node: string };
      license: string;
      dependencies: Record<string, string>;
    };
    expect(installed).toMatchObject({
      bin: { 'verdict-mcp': './dist/cli.js' },
      engines: { node: '>=18' },
      license: 'Apache-2.0',
    });
    expect(Object.keys(installed.dependencies).filter((name) => name.startsWith('@verdict/'))).toEqual([
      '@verdict/client',
    ]);
    for (const file of [
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.mjs',
      'dist/index.d.ts',
      'dist/cli.js',
    ]) {
      expect(existsSync(path.join(scratch, 'node_modules', '@verdict', 'mcp', file))).toBe(true);
    }
  });

  it('when started without its settings, then it exits naming each missing variable', () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [cliPath], {
        env: { PATH: process.env.PATH ?? '', VERDICT_URL: 'ftp://x' },
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toMatch(/VERDICT_URL: must be the http\(s\) address/);
    expect(failure?.stderr).toMatch(/VERDICT_TOKEN: is required/);
    expect(failure?.stderr).toMatch(/VERDICT_PROJECT: is required/);
  });

  it('when Node 18 runs the command, then an agent lists its tools and calls one', async () => {
    const session = await connect('stdio', seeded.owner, { node: node18 });
    try {
      expect((await session.client.listTools()).tools).toHaveLength(READ_TOOLS.length + WRITE_TOOLS.length);
      expect((await call(session.client, 'get_run', { runId: seeded.run.id })).text).toContain(
        'expected status 401, got 500',
      );
    } finally {
      await session.close();
    }
  });
});

describe.each<Kind>(['stdio', 'http'])('the MCP server over %s', (kind) => {
  // A member's token of its own: the owner's read budget is not shared with the other transport's tests.
  let member: Connected;

  beforeAll(async () => {
    member = await connect(kind, (await seeded.member()).token);
  });
  afterAll(async () => {
    await member?.close();
  });

  it('when a member lists the tools, then every tool is there, described for a model that never saw Verdict, every input field described', async () => {
    const { tools } = await member.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...READ_TOOLS, ...WRITE_TOOLS]);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(150);
      const properties = Object.entries(
        (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>,
      );
      expect(
        properties.filter(([, schema]) => !schema.description).map(([name]) => `${tool.name}.${name}`),
      ).toEqual([]);
      expect(tool.annotations?.readOnlyHint).toBe(!WRITE_TOOLS.includes(tool.name));
    }
    expect(member.client.getInstructions()).toMatch(
      /test case \(caseId\) is one test identified across runs/,
    );
  });

  it('when it lists runs, then the ingested runs come newest first with their results, and a filter narrows them', async () => {
    const listed = await call(member.client, 'list_runs', {});
    expect(listed.isError).toBe(false);
    expect(listed.text).toContain('Runs 1–3 of 3');
    expect(listed.text.indexOf(seeded.run.largeId)).toBeLessThan(listed.text.indexOf(seeded.run.id));
    expect(listed.text).toMatch(
      new RegExp(`\\| #2 \\| ${seeded.run.id} \\| failed \\| main \\| a1b2c3d4e5 \\|`),
    );
    const filtered = await call(member.client, 'list_runs', { branch: 'release' });
    expect(filtered.text).toContain(seeded.run.largeId);
    expect(filtered.text).not.toContain(seeded.run.id);
    expect((await call(member.client, 'list_runs', { branch: 'no-such-branch' })).text).toContain(
      'No runs match',
    );
  });

  it('when it gets a run, then the failures come grouped by error with the tests each hit and their caseIds', async () => {
    const { text, isError } = await call(member.client, 'get_run', { runId: seeded.run.id });
    expect(isError).toBe(false);
    expect(text).toContain('Tests: 5 — 2 failed, 1 flaky');
    expect(text).toContain('commit `a1b2c3d4e5f6` "Make login stricter"');
    expect(text).toMatch(/1\. `Error: expected status 401, got 500` — 2 failed attempts in 2 tests/);
    expect(text).toContain(`caseId \`${seeded.cases.login}\``);
    expect(text).toMatch(/2\. `TimeoutError: locator\.click: Timeout 5000ms exceeded\.`/);
  });

  it('when it gets the failure context of a run, then every failing test is named by error, failed told from flaky', async () => {
    const { text } = await call(member.client, 'get_failure_context', { runId: seeded.run.id });
    expect(text).toContain('2 failed, 1 flaky of 5 tests');
    expect(text).toContain(
      'failed: `login › refuses a wrong password` in `tests/login.spec.ts:12` [chromium]',
    );
    expect(text).toContain('failed: `cart › keeps items after login`');
    expect(text).toContain('flaky: `search › suggests products`');
    expect(text).toContain('also failed in 1 recent run');
  });

  it('when it gets the failure context of a run, then each failed test carries its verdict against main and its signature', async () => {
    const { text } = await call(member.client, 'get_failure_context', { runId: seeded.run.id });
    expect(text).toContain('Verdicts against base branch `main`');
    // The previous run on main failed the login test with the same error; the cart test never ran there.
    expect(text).toMatch(
      /failed: `login › refuses a wrong password` .*; verdict failing-on-base; signatureId `[0-9a-f]{12}`/,
    );
    expect(text).toMatch(
      /failed: `cart › keeps items after login` .*; verdict new; signatureId `[0-9a-f]{12}`/,
    );
  });

  it('when it compares a run with its base, then each category is counted with its tests; a first run has no base', async () => {
    for (const args of [{ base: seeded.run.previousId }, {}]) {
      const { text, isError } = await call(member.client, 'compare_runs', { runId: seeded.run.id, ...args });
      expect(isError).toBe(false);
      expect(text).toContain(`compared with run #1 (\`${seeded.run.previousId}\`, branch \`main\`)`);
      expect(text).toContain(
        '0 new failures · 0 fixed · 1 still failing · 0 newly flaky · 3 added · 0 removed · 0 slower',
      );
      expect(text).toMatch(
        new RegExp(
          `## Still failing \\(1\\)\\n- \`login › refuses a wrong password\` .*caseId \`${seeded.cases.login}\`; error .*signatureId`,
        ),
      );
    }
    const first = await call(member.client, 'compare_runs', { runId: seeded.run.previousId });
    expect(first.text).toContain('has no base to compare with');
    const both = await call(member.client, 'compare_runs', {
      runId: seeded.run.id,
      base: 'x',
      baseBranch: 'main',
    });
    expect(both).toMatchObject({ isError: true });
    expect(both.text).toContain('give base or baseBranch, not both');
  });

  it('when it lists error groups and opens one, then the login error names the tests and both runs it hit', async () => {
    const listed = await call(member.client, 'list_errors', {});
    expect(listed.isError).toBe(false);
    const row = listed.text.split('\n').find((line) => line.includes('expected status 401, got 500'));
    const signatureId = /^\| ([0-9a-f]{12}) \|/.exec(row ?? '')?.[1];
    expect(signatureId).toBeDefined();
    // Three failed attempts (two tests in run #2, one in run #1), in two runs.
    expect(row).toMatch(/\| 3 \| 2 \| 2 \| main \|/);
    const group = await call(member.client, 'get_error_group', { signatureId });
    expect(group.isError).toBe(false);
    expect(group.text).toContain(`**Error group \`${signatureId}\`**`);
    expect(group.text).toContain(`| ${seeded.cases.login} | refuses a wrong password |`);
    expect(group.text).toContain(seeded.run.id);
    expect(group.text).toContain(seeded.run.previousId);
    const narrowed = await call(member.client, 'list_errors', { branch: 'release', sortBy: 'tests' });
    expect(narrowed.text).not.toContain('expected status 401, got 500');
    expect((await call(member.client, 'get_error_group', { signatureId: 'nothex' })).isError).toBe(true);
  });

  it('when it gets the failure context of a spec file, then only that file’s failing tests are there', async () => {
    const { text } = await call(member.client, 'get_failure_context', {
      runId: seeded.run.id,
      suiteId: 'tests/login.spec.ts',
    });
    expect(text).toContain('Spec file `tests/login.spec.ts` failed');
    expect(text).toContain('login › refuses a wrong password');
    expect(text).not.toContain('cart › keeps items');
  });

  it('when it gets the failure context of one test, then its error, stack, steps, output and screenshot are there within the budget', async () => {
    const { text } = await call(member.client, 'get_failure_context', {
      caseId: seeded.cases.login,
      runId: seeded.run.id,
      budgetChars: 6_000,
    });
    expect(text.length).toBeLessThanOrEqual(6_000);
    expect(text).toContain('## Error');
    expect(text).toContain('at tests/login.spec.ts:14:5');
    expect(text).toContain('expect status 401');
    expect(text).toContain('POST /login -> 500 Internal Server Error');
    expect(text).toMatch(/`screenshot` \(image\/png\): http:\/\/\S+\/downloads\//);
  });

  it('when a run has 200 failures, then the failure context stays within the requested budget and still names every failing test', async () => {
    const budget = 6_000;
    const { text } = await call(member.client, 'get_failure_context', {
      runId: seeded.run.largeId,
      budgetChars: budget,
    });
    expect(text.length).toBeLessThanOrEqual(budget);
    const unnamed = Array.from({ length: 200 }, (_, i) => `renders product ${i}`).filter(
      (title) => !new RegExp(`${title}(?!\\d)`).test(text),
    );
    expect(unnamed).toEqual([]);
    expect(text).toContain('200 failed, 0 flaky of 200 tests');
  });

  it('when it gets a test’s history, then its executions across runs say where it failed', async () => {
    const { text } = await call(member.client, 'get_test_history', { caseId: seeded.cases.login });
    expect(text).toContain('## `login › refuses a wrong password` in `tests/login.spec.ts`');
    expect(text).toContain('All recorded executions: 2 — 0 passed, 2 failed');
    expect(text).toContain('branches `main` (2)');
    expect(text).toContain(seeded.run.previousId);
  });

  it('when it looks for flaky tests and searches tests, then the explorer answers with rates and caseIds', async () => {
    const flaky = await call(member.client, 'find_flaky_tests', {});
    expect(flaky.text).toContain('The flaky test of the last 30 days');
    expect(flaky.text).toContain(
      '| search > suggests products | tests/search.spec.ts | flaky | 0% | 100% | 1 |',
    );
    expect(flaky.text).toContain(seeded.cases.flaky);
    expect(flaky.text).not.toContain('checkout › pays by card');
    const found = await call(member.client, 'search_tests', { query: 'wrong password' });
    expect(found.text).toContain('login > refuses a wrong password');
    expect(found.text).toContain(seeded.cases.login);
    expect(found.text).toMatch(/\| failed \| 100% \| 0% \| 2 \|/);
  });

  it('when it gets the analytics summary, then it has the runs, the flaky tests and the new failures', async () => {
    const { text } = await call(member.client, 'get_analytics_summary', { dateRange: '7d' });
    expect(text).toContain('- Runs: 3 (0 passed, 3 failed');
    expect(text).toMatch(
      /### Flaky tests\n\n.*\n\n\| Test \| File \| Days \| Dates \|[\s\S]*suggests products/,
    );
  });

  it('when it reads manual testing, then cases, a case’s steps and a run’s progress are there', async () => {
    const list = await call(member.client, 'list_manual_cases', { search: 'expired card' });
    expect(list.text).toContain(
      `| ${seeded.manual.caseKey} | Checkout refuses an expired card | active | high |`,
    );
    const manualCase = await call(member.client, 'get_manual_case', { caseId: seeded.manual.caseKey });
    expect(manualCase.text).toContain('2. Pay with card 4000 0000 0000 0069');
    expect(manualCase.text).toContain('Expected: Payment is refused: card expired');
    const manualRun = await call(member.client, 'get_manual_run', { runId: seeded.manual.runKey });
    expect(manualRun.text).toContain(`## ${seeded.manual.runKey} \`Release 2.0 smoke\``);
    expect(manualRun.text).toMatch(/Progress: \d of 1 case done/);
  });

  it('when a member records a result and creates a case, then Verdict has them', async () => {
    const recorded = await call(member.client, 'record_manual_result', {
      runId: seeded.manual.runKey,
      caseId: seeded.manual.caseKey,
      result: kind === 'stdio' ? 'failed' : 'blocked',
      elapsedSeconds: 90,
      comment: `Refused with the wrong message (${kind})`,
      issues: ['SHOP-42'],
    });
    expect(recorded.isError).toBe(false);
    expect(recorded.text).toContain(
      `Recorded ${kind === 'stdio' ? 'failed' : 'blocked'} for ${seeded.manual.caseKey}`,
    );
    expect(recorded.text).toContain('issues: SHOP-42');
    const run = await call(member.client, 'get_manual_run', {
      runId: seeded.manual.runKey,
      result: kind === 'stdio' ? 'failed' : 'blocked',
    });
    expect(run.text).toContain(`Refused with the wrong message (${kind})`);

    const created = await call(member.client, 'create_manual_case', {
      title: `Cart survives a reload (${kind})`,
      steps: [{ action: 'Reload the cart page', expectedResult: 'The items are still there' }],
      priority: 'medium',
    });
    const key = /^Created (TC-\d+) /.exec(created.text)?.[1];
    expect(key).toBeDefined();
    expect((await call(member.client, 'get_manual_case', { caseId: key })).text).toContain(
      '1. Reload the cart page',
    );
  });

  it('when it reads the resources and the triage prompt, then they give the runs and walk from the run to each failure', async () => {
    const { resources } = await member.client.listResources();
    const uri = `verdict://projects/${seeded.project}/runs/${seeded.run.id}`;
    expect(resources.map((resource) => resource.uri)).toContain(uri);
    const { resourceTemplates } = await member.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual([
      'verdict://projects/{projectId}/manual-cases/{caseId}',
      'verdict://projects/{projectId}/manual-runs/{runId}',
      'verdict://projects/{projectId}/runs/{runId}',
      'verdict://projects/{projectId}/test-cases/{caseId}',
    ]);
    const read = await member.client.readResource({ uri });
    expect(read.contents[0]).toMatchObject({ uri, mimeType: 'text/markdown' });
    expect(read.contents[0]).toMatchObject({ text: expect.stringContaining('Failures grouped by error') });
    const testCase = await member.client.readResource({
      uri: `verdict://projects/${seeded.project}/test-cases/${seeded.cases.flaky}`,
    });
    expect(testCase.contents[0]).toMatchObject({
      text: expect.stringContaining('search › suggests products'),
    });

    const prompt = await member.client.getPrompt({ name: 'triage_run', arguments: { runId: seeded.run.id } });
    const [instructions, summary] = prompt.messages;
    expect(instructions!.content).toMatchObject({
      type: 'text',
      text: expect.stringContaining(`get_failure_context with runId=${seeded.run.id}`),
    });
    expect(summary!.content).toMatchObject({
      type: 'resource',
      resource: { uri, text: expect.stringContaining('expected status 401, got 500') },
    });
    // Without a runId: the latest failed run.
    const latest = await member.client.getPrompt({ name: 'triage_run', arguments: {} });
    expect(latest.messages[0]!.content).toMatchObject({ text: expect.stringContaining(seeded.run.largeId) });
  });

  it('when tool input is malformed, then the tool error names the field and the server keeps answering', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['list_runs', { limit: 'ten' }, /limit/],
      ['list_runs', { limit: 500 }, /<=50 at limit/],
      ['list_runs', { from: 'yesterday' }, /ISO 8601 date .* at from/],
      ['get_run', {}, /at runId/],
      ['get_run', { runid: seeded.run.id }, /"runid"/],
      ['get_failure_context', {}, /give runId .* at runId/],
      ['get_failure_context', { runId: seeded.run.id, attempt: 1 }, /needs caseId at attempt/],
      ['record_manual_result', { runId: 'RUN-1', caseId: 'TC-1', result: 'green' }, /at result/],
      ['get_analytics_summary', { startDate: '2026-01-01' }, /is required with startDate at endDate/],
      ['get_gate', {}, /at runId/],
      ['list_quarantine', { status: 'gone' }, /at status/],
      ['list_quarantine', { expiringWithinDays: 91 }, /<=90 at expiringWithinDays/],
      [
        'quarantine_test',
        { caseId: 'c', file: 'a.spec.ts', titlePath: ['a'], reason: 'r', ownerId: 'u', expiresInDays: 7 },
        /give caseId or file and titlePath, not both at caseId/,
      ],
      ['quarantine_test', { file: 'a.spec.ts', reason: 'r', ownerId: 'u', expiresInDays: 7 }, /at titlePath/],
      [
        'quarantine_test',
        { caseId: 'c', reason: 'r', ownerId: 'u' },
        /give expiresAt or expiresInDays \(one of them\) at expiresAt/,
      ],
      [
        'quarantine_test',
        { caseId: 'c', reason: 'r', ownerId: 'u', expiresInDays: 91 },
        /<=90 at expiresInDays/,
      ],
      [
        'quarantine_test',
        { caseId: 'c', reason: 'r', ownerId: 'u', expiresInDays: 7, signatures: ['xyz'] },
        /12 hexadecimal characters at signatures/,
      ],
      ['lift_quarantine', {}, /at quarantineId/],
    ];
    for (const [tool, args, names] of cases) {
      const answer = await call(member.client, tool, args);
      expect({ tool, args, isError: answer.isError }).toEqual({ tool, args, isError: true });
      expect(answer.text).toMatch(names);
    }
    // An id Verdict does not know is the API's answer, as a tool error.
    const missing = await call(member.client, 'get_run', { runId: 'no-such-run' });
    expect(missing).toMatchObject({ isError: true, text: expect.stringMatching(/^Verdict answered 404 /) });
    expect((await call(member.client, 'list_runs', { limit: 1 })).isError).toBe(false);
  });

  it.each([
    ['a viewer’s personal token', () => seeded.viewer],
    ['a project token created by a viewer', () => seeded.viewerProjectToken],
  ])('when %s connects, then no write tool is listed and calling one fails', async (_name, token) => {
    const viewer = await connect(kind, token());
    try {
      expect((await viewer.client.listTools()).tools.map((tool) => tool.name)).toEqual(READ_TOOLS);
      const write = await call(viewer.client, 'record_manual_result', {
        runId: seeded.manual.runKey,
        caseId: seeded.manual.caseKey,
        result: 'passed',
      });
      expect(write).toMatchObject({
        isError: true,
        text: expect.stringContaining('Tool record_manual_result not found'),
      });
      const quarantine = await call(viewer.client, 'quarantine_test', {
        caseId: seeded.cases.flaky,
        reason: 'flaky',
        ownerId: seeded.memberUser.id,
        expiresInDays: 7,
      });
      expect(quarantine).toMatchObject({
        isError: true,
        text: expect.stringContaining('Tool quarantine_test not found'),
      });
      expect((await call(viewer.client, 'list_quarantine', {})).isError).toBe(false);
      expect((await call(viewer.client, 'get_run', { runId: seeded.run.id })).isError).toBe(false);
    } finally {
      await viewer.close();
    }
    // The API itself refuses the token's writes too, whoever asks.
    const direct = await fetch(`${seeded.url}/api/public/v1/${seeded.project}/manual-test-cases`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token()}`,
        'content-type': 'application/json',
        'x-forwarded-for': clientAddress(),
      },
      body: JSON.stringify({ title: 'Not allowed' }),
    });
    expect(direct.status).toBe(403);
    const quarantine = await fetch(`${seeded.url}/api/public/v1/${seeded.project}/quarantines`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token()}`,
        'content-type': 'application/json',
        'x-forwarded-for': clientAddress(),
      },
      body: JSON.stringify({
        testCaseId: seeded.cases.flaky,
        reason: 'flaky',
        ownerId: seeded.memberUser.id,
        expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      }),
    });
    expect(quarantine.status).toBe(403);
  });

  it('when a revoked token connects, then it is refused; when a token is revoked mid-session, then its next call is refused', async () => {
    const revoked = await seeded.member();
    await seeded.revoke(revoked.id);
    const refusal = await connect(kind, revoked.token).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(refusal).not.toBeNull();
    if (kind === 'http')
      expect(refusal).toMatchObject({ code: 401, message: expect.stringContaining('Token revoked') });
    else {
      // The command stopped before answering, saying why on stderr.
      const said = (refusal as Error & { stderr: () => string }).stderr;
      await until(
        'the refusal on stderr',
        async () => said(),
        (text) => text.includes('Token revoked'),
      );
      expect(said()).toContain(
        'Verdict refused to start the MCP server: Verdict answered 401 UNAUTHORIZED: Token revoked',
      );
    }

    const live = await seeded.member();
    const session = await connect(kind, live.token);
    try {
      expect((await call(session.client, 'list_runs', { limit: 1 })).isError).toBe(false);
      await seeded.revoke(live.id);
      const next = await call(session.client, 'list_runs', { limit: 1 }).then(
        (answer) => answer.text,
        (error: unknown) => String((error as Error).message),
      );
      expect(next).toMatch(/401.*UNAUTHORIZED|UNAUTHORIZED.*revoked/s);
      expect(next).toContain('Token revoked');
    } finally {
      await session.close();
    }
  });

  it('when a token spends its write budget (60 a minute), then the next write is a tool error that says when to retry', async () => {
    const { token } = await seeded.member();
    const session = await connect(kind, token);
    try {
      let refused: string | undefined;
      // At most two windows' worth: a window may end while the budget is being spent.
      for (let i = 0; i < 130 && refused === undefined; i += 1) {
        const answer = await call(session.client, 'record_manual_result', {
          runId: seeded.manual.runKey,
          caseId: seeded.manual.caseKey,
          result: 'retest',
        });
        if (answer.isError) refused = answer.text;
      }
      expect(refused).toMatch(
        /^Verdict answered 429 RATE_LIMIT_EXCEEDED: .*\nThe token's rate limit is spent: try again in \d+ s\./s,
      );
    } finally {
      await session.close();
    }
  });
});

describe('the /mcp endpoint over HTTP', () => {
  const post = (headers: Record<string, string>, body: string, query = `?project=${seeded.project}`) =>
    fetch(`${seeded.url}/mcp${query}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-forwarded-for': clientAddress(),
        ...headers,
      },
      body,
    });
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  });

  it('when no token is sent, then 401 in the API envelope with a Bearer challenge', async () => {
    const answer = await post({}, initialize);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await answer.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  });

  it('when no project is named, then 400 VALIDATION_ERROR names project', async () => {
    const answer = await post({ authorization: `Bearer ${seeded.owner}` }, initialize, '');
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^project: is required/) },
    });
  });

  it('when the body is not JSON, then a JSON-RPC parse error, and the next request is answered', async () => {
    const answer = await post({ authorization: `Bearer ${seeded.owner}` }, '{"jsonrpc": "2.0", "id": 1,');
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    const next = await post({ authorization: `Bearer ${seeded.owner}` }, initialize);
    expect(next.status).toBe(200);
    expect(await next.json()).toMatchObject({ result: { serverInfo: { name: 'verdict' } } });
  });

  it('when a body is larger than 4 MiB, then 413 before anything is parsed', async () => {
    const answer = await post(
      { authorization: `Bearer ${seeded.owner}` },
      `"${'x'.repeat(5 * 1024 * 1024)}"`,
    );
    expect(answer.status).toBe(413);
  });

  it('when a client opens the server-to-client stream (GET), then 405: the server is stateless', async () => {
    const answer = await fetch(`${seeded.url}/mcp?project=${seeded.project}`, {
      headers: { authorization: `Bearer ${seeded.owner}`, accept: 'text/event-stream' },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
  });
});

// Last in the file: it finishes more runs, which the tests above count.
describe('quarantines and quality gates through the MCP tools', () => {
  // The member writes through the packed command (stdio) and reads back over Streamable HTTP.
  let writer: Connected;
  let reader: Connected;
  let quarantineId: string;

  const login = ['login', 'refuses a wrong password'];
  const result = (titlePath: string[], status: ResultItem['status'], error?: ResultItem['error']) => ({
    file: `tests/${titlePath[0]}.spec.ts`,
    titlePath,
    project: 'chromium',
    attempt: 0,
    status,
    durationMs: 100,
    startedAt: new Date().toISOString(),
    ...(error ? { error } : {}),
  });
  // The login test's known failure, as the seeded runs had it: the signature a quarantine of it forgives.
  const knownFailure = {
    message: 'Error: expected status 401, got 500',
    stack: 'Error: expected status 401, got 500\n    at tests/login.spec.ts:14:5',
    location: { file: 'tests/login.spec.ts', line: 14, column: 5 },
  };

  beforeAll(async () => {
    writer = await connect('stdio', (await seeded.member()).token);
    reader = await connect('http', (await seeded.member()).token);
  });
  afterAll(async () => {
    await writer?.close();
    await reader?.close();
  });

  it('when a member quarantines a failing test, then list_quarantine shows it active with its owner and the signature it forgives', async () => {
    const made = await call(writer.client, 'quarantine_test', {
      caseId: seeded.cases.login,
      reason: 'Login answers 500 until the auth fix lands',
      // The owner by e-mail address: the tool finds the member's user id.
      ownerId: seeded.memberUser.email,
      expiresInDays: 14,
      releaseRule: { cleanRuns: 3 },
    });
    expect(made.isError).toBe(false);
    expect(made.text).toMatch(
      /^Quarantined `login › refuses a wrong password` in `tests\/login\.spec\.ts` \(every platform\): quarantine `[^`]+`, active\./,
    );
    quarantineId = /quarantine `([^`]+)`/.exec(made.text)![1]!;
    expect(made.text).toContain(`owner \`${seeded.memberUser.id}\``);
    expect(made.text).toContain('or is lifted after 3 clean runs');
    expect(made.text).toMatch(
      /Forgives 1 error signature:\n- `[0-9a-f]{12}` `.*expected status 401, got 500/,
    );

    const listed = await call(reader.client, 'list_quarantine', {});
    expect(listed.isError).toBe(false);
    expect(listed.text).toContain('Active quarantines 1–1 of 1 (page 1 of 1), soonest expiry first.');
    expect(listed.text).toMatch(
      new RegExp(
        `\\| ${quarantineId} \\| login › refuses a wrong password \\| tests/login\\.spec\\.ts \\| every platform \\| active \\| .* \\| ${seeded.memberUser.id} \\| Login answers 500 until the auth fix lands \\| [0-9a-f]{12} \\| ${seeded.cases.login} \\|`,
      ),
    );
    const byOwner = await call(reader.client, 'list_quarantine', { ownerId: seeded.memberUser.id });
    expect(byOwner.text).toContain(quarantineId);
    expect((await call(reader.client, 'list_quarantine', { ownerId: 'someone-else' })).text).toBe(
      'No active quarantines match.',
    );
    expect((await call(reader.client, 'list_quarantine', { expiringWithinDays: 7 })).text).toBe(
      'No active quarantines match.',
    );
    expect((await call(reader.client, 'list_quarantine', { expiringWithinDays: 15 })).text).toContain(
      quarantineId,
    );
    expect((await call(reader.client, 'list_quarantine', { status: 'lifted' })).text).toBe(
      'No lifted quarantines match.',
    );
  });

  it('when a quarantine is refused, then the tool error says why: quarantined already, an unknown test, an owner who is not a member', async () => {
    const base = { reason: 'flaky', expiresInDays: 7 };
    const again = await call(writer.client, 'quarantine_test', {
      ...base,
      file: 'tests/login.spec.ts',
      titlePath: login,
      ownerId: seeded.memberUser.id,
    });
    expect(again).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^Verdict answered 409 CONFLICT: The test is quarantined already/),
    });
    const unknown = await call(writer.client, 'quarantine_test', {
      ...base,
      caseId: 'no-such-test',
      ownerId: seeded.memberUser.id,
    });
    expect(unknown).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^Verdict answered 404 TEST_CASE_NOT_FOUND: /),
    });
    const stranger = await call(writer.client, 'quarantine_test', {
      ...base,
      caseId: seeded.cases.flaky,
      ownerId: 'not-a-member',
    });
    expect(stranger).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^Verdict answered 400 VALIDATION_ERROR: .*ownerId: not a member/),
    });
    const nobody = await call(writer.client, 'quarantine_test', {
      ...base,
      caseId: seeded.cases.flaky,
      ownerId: 'nobody@example.com',
    });
    expect(nobody).toEqual({
      isError: true,
      text: 'Invalid input: ownerId: no member of the project has the e-mail address nobody@example.com',
    });
  });

  it('when an admin sets gate rules and runs finish, then get_gate says passed or failed with each rule, the quarantined failure left out', async () => {
    const api = createVerdictClient({ baseUrl: seeded.url, token: seeded.owner, project: seeded.project });
    const asMember = createVerdictClient({
      baseUrl: seeded.url,
      token: (await seeded.member()).token,
      project: seeded.project,
    });
    await expect(asMember.setGateRules({ maxFailedTests: 0 })).rejects.toMatchObject({ status: 403 });
    const admin = createVerdictClient({ baseUrl: seeded.url, token: seeded.admin, project: seeded.project });
    await admin.setGateRules({ maxFailedTests: 0, noNewFailures: true });

    // A run finished before the rules keeps having no gate.
    expect((await call(reader.client, 'get_gate', { runId: seeded.run.id })).text).toContain(
      'has no quality gate: the project had no gate rules when it finished',
    );

    const finish = async (ciRunId: string, results: ReturnType<typeof result>[]) => {
      const run = (await api.startRun({ ciRunId, branch: 'main' })).run;
      await api.addResults(run.id, results);
      await api.finishRun(run.id);
      await until(
        `the gate of ${ciRunId}`,
        () => api.getRunGate(run.id),
        (gate) => gate.status !== 'pending',
      );
      return run.id;
    };
    // The login test fails with its known error only: quarantined, it breaks no rule.
    const passing = await finish('gate-1', [
      result(login, 'failed', knownFailure),
      result(['checkout', 'pays by card'], 'passed'),
    ]);
    // Then the checkout test fails with an error never seen: a new failure, which counts.
    const failing = await finish('gate-2', [
      result(login, 'failed', knownFailure),
      result(['checkout', 'pays by card'], 'failed', { message: 'Error: card declined by the bank' }),
    ]);
    const running = (await api.startRun({ ciRunId: 'gate-3', branch: 'main' })).run.id;

    const passed = await call(reader.client, 'get_gate', { runId: passing });
    expect(passed.isError).toBe(false);
    expect(passed.text).toContain(`## Quality gate of run \`${passing}\`: passed`);
    expect(passed.text).toContain('2 rules, 0 broken');
    expect(passed.text).toMatch(/\| maxFailedTests \| [^|]+ \| 0 \| 0 \| passed \|/);
    expect(passed.text).toMatch(/\| noNewFailures \| [^|]+ \| true \| true \| passed \|/);
    expect(passed.text).toContain('Every rule passed.');

    const failed = await call(writer.client, 'get_gate', { runId: failing });
    expect(failed.text).toContain(`## Quality gate of run \`${failing}\`: failed`);
    expect(failed.text).toContain('2 rules, 2 broken');
    expect(failed.text).toMatch(/\| maxFailedTests \| [^|]+ \| 0 \| 1 \| failed \|/);
    expect(failed.text).toMatch(/\| noNewFailures \| [^|]+ \| true \| false \| failed \|/);
    expect(failed.text).toMatch(
      /### maxFailedTests: the failures that broke it \(1\)\n- `checkout › pays by card` in `tests\/checkout\.spec\.ts` \[chromium\]; verdict new; caseId `[^`]+`; signatureId `[0-9a-f]{12}`/,
    );
    expect(failed.text).toContain('### noNewFailures: the failures that broke it (1)');
    expect(failed.text).not.toContain('refuses a wrong password');
    // The failure the quarantine forgave is told apart in the run's failure context.
    expect((await call(reader.client, 'get_failure_context', { runId: failing })).text).toMatch(
      /failed: `login › refuses a wrong password` .*; verdict quarantined/,
    );

    expect((await call(reader.client, 'get_gate', { runId: running })).text).toContain(
      `The quality gate of run \`${running}\` is pending`,
    );
    expect(await call(reader.client, 'get_gate', { runId: 'no-such-run' })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^Verdict answered 404 TEST_RUN_NOT_FOUND: /),
    });
  });

  it('when a member lifts the quarantine, then it is listed as lifted, and lifting it again is refused', async () => {
    const lifted = await call(writer.client, 'lift_quarantine', { quarantineId, reason: 'fixed in #123' });
    expect(lifted.isError).toBe(false);
    expect(lifted.text).toMatch(
      new RegExp(
        `^Lifted the quarantine of \`login › refuses a wrong password\` in \`tests/login\\.spec\\.ts\` \\(every platform\\): quarantine \`${quarantineId}\`, lifted\\.`,
      ),
    );
    expect(lifted.text).toMatch(/- Ended .*: fixed in #123\./);
    expect((await call(reader.client, 'list_quarantine', {})).text).toBe('No active quarantines match.');
    const history = await call(reader.client, 'list_quarantine', { status: 'lifted' });
    expect(history.text).toContain('Lifted quarantines 1–1 of 1');
    expect(history.text).toMatch(new RegExp(`\\| ${quarantineId} \\| .* \\| lifted \\|`));

    expect(await call(writer.client, 'lift_quarantine', { quarantineId })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^Verdict answered 409 CONFLICT: /),
    });
    expect(
      await call(writer.client, 'lift_quarantine', { quarantineId: 'no-such-quarantine' }),
    ).toMatchObject({ isError: true, text: expect.stringMatching(/^Verdict answered 404 NOT_FOUND: /) });
  });
});
