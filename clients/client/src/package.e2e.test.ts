import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureNode18 } from '../../../e2e/src/node18';
import { randomPort, repoRoot, startProcess, type RunningProcess } from '../../../e2e/src/processes';

// @verdict/client as a user gets it: packed with `npm pack`, installed alone into a scratch project, and
// used from plain JavaScript (import and require) under Node 18, the oldest it supports, and Node 22,
// against a real `npm start`; then compiled against by TypeScript as an ESM and a CJS project would.

const packageDir = path.join(repoRoot, 'clients', 'client');

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** One script, written as an ES module and as a CommonJS one: it ingests a run and reads it back. */
function ingestScript(kind: 'import' | 'require'): string {
  const load =
    kind === 'import'
      ? "import { createVerdictClient, VerdictApiError } from '@verdict/client';\nimport { readFileSync } from 'node:fs';"
      : "const { createVerdictClient, VerdictApiError } = require('@verdict/client');\nconst { readFileSync } = require('node:fs');";
  return `${load}
const { VERDICT_URL, VERDICT_TOKEN, VERDICT_PROJECT, CI_RUN_ID, ARTIFACT } = process.env;
async function main() {
  const verdict = createVerdictClient({ baseUrl: VERDICT_URL, token: VERDICT_TOKEN, project: VERDICT_PROJECT });
  const started = await verdict.startRun({ ciRunId: CI_RUN_ID, branch: 'main', framework: { name: 'plain-node' } });
  const joined = await verdict.startRun({ ciRunId: CI_RUN_ID });
  const runId = started.run.id;
  const artifact = await verdict.uploadArtifact(runId, { path: ARTIFACT, contentType: 'image/png', resultRef: 'login' });
  const again = await verdict.uploadArtifact(runId, { path: ARTIFACT, contentType: 'image/png', resultRef: 'login' });
  const now = new Date().toISOString();
  const result = (title, attempt, status) => ({
    file: 'tests/login.spec.ts', titlePath: ['login', title], project: 'chromium', attempt, status, durationMs: 12, startedAt: now,
    ...(status === 'failed' ? { error: { message: 'expected 200, got 500' } } : {}),
  });
  const results = [
    result('accepts a valid password', 0, 'passed'),
    result('refuses a wrong password', 0, 'failed'),
    { ...result('shows the captcha', 0, 'failed') },
    { ...result('shows the captcha', 1, 'passed'), attachments: [{ name: 'screenshot', contentType: 'image/png', artifactId: artifact.id }] },
    result('remembers the user', 0, 'skipped'),
  ];
  const sent = await verdict.addResults(runId, results, { batchSize: 2 });
  const resent = await verdict.addResults(runId, results);
  const finished = await verdict.finishRun(runId, { status: 'failed' });
  const finishedAgain = await verdict.finishRun(runId);
  let detail;
  for (let i = 0; i < 100; i += 1) {
    detail = await verdict.getRun(runId, { include: 'artifacts', urls: artifact.id });
    if (detail.stats.total === 4) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const link = detail.artifacts && detail.artifacts[artifact.id];
  const downloaded = link ? Buffer.from(await (await fetch(link.url)).arrayBuffer()) : Buffer.alloc(0);
  let missing;
  try {
    await verdict.getRun('no-such-run');
  } catch (error) {
    missing = { apiError: error instanceof VerdictApiError, status: error.status, code: error.code };
  }
  const markdown = await verdict.debugBundleMarkdown({ runId });
  process.stdout.write(JSON.stringify({
    node: process.version,
    created: started.created,
    joined: joined.created === false && joined.run.id === runId,
    artifact: { sameId: again.id === artifact.id, size: artifact.size, downloadedIntact: downloaded.equals(readFileSync(ARTIFACT)) },
    sent, resent,
    finished: finished.status, finishedAgain: finishedAgain.finishedAt === finished.finishedAt,
    stats: detail.stats,
    missing,
    markdownNamesFailure: markdown.includes('expected 200, got 500'),
  }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;
}

const CONSUMER = `import { createVerdictClient, VerdictApiError, type RunDetail, type ResultItem } from '@verdict/client';

export async function read(runId: string): Promise<number> {
  const verdict = createVerdictClient({ baseUrl: 'http://localhost:8080', project: 'p' });
  const run: RunDetail = await verdict.getRun(runId);
  const flaky: number = run.stats.flaky;
  // @ts-expect-error: a run has no such field
  void run.stats.nonsense;
  // @ts-expect-error: branch is text
  await verdict.startRun({ branch: 1 });
  const item: ResultItem = { file: 'a.spec.ts', titlePath: ['a'], attempt: 0, status: 'passed', durationMs: 1, startedAt: '2026-01-01T00:00:00Z' };
  // @ts-expect-error: not a result status
  const wrong: ResultItem = { ...item, status: 'green' };
  const listed = await verdict.api.GET('/{projectId}/test-runs', { params: { path: { projectId: 'p' }, query: { limit: 5 } } });
  const total: number | undefined = listed.data?.pagination.total;
  return flaky + (total ?? 0) + (wrong ? 0 : 1) + (new VerdictApiError({ status: 400, code: 'X', message: 'm' }).status);
}
`;

describe('@verdict/client as published', () => {
  let scratch: string;
  let dataDir: string;
  let verdict: RunningProcess;
  let url: string;
  let token: string;
  let project: string;
  let packedFiles: string[];
  let node18: string;

  beforeAll(async () => {
    if (!existsSync(path.join(packageDir, 'dist', 'index.js'))) {
      throw new Error('clients/client is not built: run `npm run build:clients` (npm test builds it)');
    }
    scratch = mkdtempSync(path.join(tmpdir(), 'verdict-client-user-'));
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-client-data-'));
    const port = randomPort();
    url = `http://localhost:${port}`;
    verdict = startProcess(process.execPath, [path.join(repoRoot, 'scripts/run.cjs'), 'start'], {
      PORT: String(port),
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    // Packed as built (npm test built it just before), installed alone, as a user's npm would.
    const [packed] = JSON.parse(
      npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], packageDir),
    ) as { filename: string; files: { path: string }[] }[];
    if (!packed) throw new Error('npm pack made no tarball');
    packedFiles = packed.files.map((file) => file.path).sort();
    writeFileSync(
      path.join(scratch, 'package.json'),
      JSON.stringify({ name: 'user-project', private: true }),
    );
    npm(
      ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(scratch, packed.filename)],
      scratch,
    );
    node18 = ensureNode18();
    await verdict.waitFor(url, 120_000);
    token = /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1] ?? '';
    project = /Project id:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
  });

  afterAll(async () => {
    await verdict?.stop();
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when packed, then the tarball holds the built code, its types, README and license, and depends on no workspace package', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.mjs',
        'dist/index.d.ts',
        'dist/index.d.mts',
      ]),
    );
    expect(packedFiles.filter((file) => !/^(dist\/|README\.md$|LICENSE$|package\.json$)/.test(file))).toEqual(
      [],
    );
    const installed = JSON.parse(
      readFileSync(path.join(scratch, 'node_modules', '@verdict', 'client', 'package.json'), 'utf8'),
    ) as { dependencies: Record<string, string>; engines: { node: string }; license: string };
    expect(Object.keys(installed.dependencies).filter((name) => name.startsWith('@verdict/'))).toEqual([]);
    expect(installed).toMatchObject({ engines: { node: '>=18' }, license: 'Apache-2.0' });
  });

  it.each([
    ['Node 18', 'ingest.mjs'],
    ['Node 18', 'ingest.cjs'],
    ['Node 22', 'ingest.mjs'],
    ['Node 22', 'ingest.cjs'],
  ])(
    'when %s runs %s, then a run goes in (results, an artifact from a file, finish) and reads back whole',
    (nodeName, script) => {
      writeFileSync(path.join(scratch, script), ingestScript(script.endsWith('.mjs') ? 'import' : 'require'));
      const artifact = path.join(scratch, 'screenshot.png');
      writeFileSync(artifact, Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256)));
      const node = nodeName === 'Node 18' ? node18 : process.execPath;
      const output = execFileSync(node, [script], {
        cwd: scratch,
        encoding: 'utf8',
        env: {
          ...process.env,
          VERDICT_URL: url,
          VERDICT_TOKEN: token,
          VERDICT_PROJECT: project,
          CI_RUN_ID: `${nodeName}-${script}`,
          ARTIFACT: artifact,
        },
      });
      const report = JSON.parse(output) as Record<string, unknown>;
      expect(report.node).toMatch(nodeName === 'Node 18' ? /^v18\./ : /^v22\./);
      expect(report).toMatchObject({
        created: true,
        joined: true,
        artifact: { sameId: true, size: 70_000, downloadedIntact: true },
        sent: { accepted: 5, duplicates: 0 },
        resent: { accepted: 0, duplicates: 5 },
        finished: 'finished',
        finishedAgain: true,
        stats: { total: 4, passed: 1, failed: 1, flaky: 1, skipped: 1 },
        missing: { apiError: true, status: 404 },
        markdownNamesFailure: true,
      });
    },
  );

  it('when the admin client is given the admin key, then it creates a user and lists it; a wrong key is a 401 VerdictApiError', () => {
    const adminKey = /Admin key:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
    writeFileSync(
      path.join(scratch, 'admin.mjs'),
      `import { createVerdictAdminClient, unwrap, VerdictApiError } from '@verdict/client';
const { VERDICT_URL, ADMIN_KEY } = process.env;
const admin = createVerdictAdminClient({ baseUrl: VERDICT_URL, adminKey: ADMIN_KEY });
const created = unwrap(await admin.api.POST('/users', { body: { email: 'ci-bot@example.com', firstName: 'CI', lastName: 'Bot' } }));
const listed = unwrap(await admin.api.GET('/users', { params: { query: { limit: 100 } } }));
let refused;
try {
  unwrap(await createVerdictAdminClient({ baseUrl: VERDICT_URL, adminKey: 'wrong' }).api.GET('/organizations'));
} catch (error) {
  refused = { apiError: error instanceof VerdictApiError, status: error.status, code: error.code };
}
process.stdout.write(JSON.stringify({ email: created.data.email, listed: listed.data.some((u) => u.id === created.data.id), refused }));
`,
    );
    const output = execFileSync(process.execPath, ['admin.mjs'], {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, VERDICT_URL: url, ADMIN_KEY: adminKey },
    });
    expect(JSON.parse(output)).toEqual({
      email: 'ci-bot@example.com',
      listed: true,
      refused: { apiError: true, status: 401, code: 'UNAUTHORIZED' },
    });
  });

  it('when a TypeScript project compiles against the package (ESM and CommonJS resolution), then its calls are typed', () => {
    writeFileSync(path.join(scratch, 'consumer.mts'), CONSUMER);
    writeFileSync(path.join(scratch, 'consumer.cts'), CONSUMER);
    const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    const compile = (file: string) =>
      execFileSync(process.execPath, [tsc, ...args, '--lib', 'es2022,dom', file], {
        cwd: scratch,
        encoding: 'utf8',
      });
    const errorsOf = (file: string) => {
      try {
        compile(file);
        return '';
      } catch (error) {
        return String((error as { stdout?: string }).stdout ?? error);
      }
    };
    // Every @ts-expect-error above must meet its error, or tsc fails: the types are not `any`.
    expect(errorsOf('consumer.mts')).toBe('');
    expect(errorsOf('consumer.cts')).toBe('');
  });

  it('when the server serves its OpenAPI document, then the client was typed from the very same operations', async () => {
    const served = (await (await fetch(`${url}/api/public/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const typed = JSON.parse(
      readFileSync(path.join(packageDir, 'src', 'generated', 'public.openapi.json'), 'utf8'),
    ) as { paths: Record<string, Record<string, unknown>> };
    const operations = (paths: Record<string, Record<string, unknown>>, prefix: string) =>
      Object.entries(paths)
        .filter(([p]) => p.startsWith(prefix))
        .flatMap(([p, item]) => Object.keys(item).map((method) => `${method} ${p.slice(prefix.length)}`))
        .sort();
    const typedOperations = operations(typed.paths, '');
    expect(typedOperations.length).toBeGreaterThan(30);
    expect(typedOperations).toEqual(operations(served.paths, '/api/public/v1'));
  });
});
