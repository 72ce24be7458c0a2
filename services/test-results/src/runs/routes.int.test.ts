import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ErrorEnvelope } from '@verdict/contracts';
import { createInProcessBus, newSecret, type SqlDatabase } from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import type { TestResultsModule } from '../module';
import { realisticResult } from '../runs/fixtures';
import { testDatabases } from '@verdict/platform/testing/databases';
import { memberIdentity, serveOverHttp, testModule } from '../testing';

const secret = newSecret(32);
const PROJECT = 'project-1';

const DATABASES = testDatabases();

describe.each(DATABASES)('the ingest routes on $name', (database) => {
  let db: SqlDatabase;
  let server: Server;
  let base: string;
  let blobDir: string;
  let module: TestResultsModule;
  const storeSchema = uniqueName('tr');
  const bus = createInProcessBus();

  const headers = (extra: Record<string, string> = {}) => ({ ...memberIdentity(secret, PROJECT), ...extra });

  const post = (url: string, body: unknown, contentType = 'application/json') =>
    fetch(`${base}${url}`, {
      method: 'POST',
      headers: headers({ 'content-type': contentType }),
      body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    db = await database.open();
    blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-blobs-'));
    module = testModule(
      { db, bus, blobDir },
      {
        internalSecret: secret,
        names: { storeSchema, topic: uniqueName('tr'), readModelSchema: uniqueName('trr') },
      },
    );
    await module.start();
    ({ server, base } = await serveOverHttp(module));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await module.stop();
    await bus.close();
    await db.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  async function startRun(body: unknown = {}) {
    const answer = await post(`/${PROJECT}/test-runs`, body);
    return {
      status: answer.status,
      run: ((await answer.json()) as { data: { id: string; counter: number } }).data,
    };
  }

  it('when a run is started, then 201 with a running run; the same ciRunId again joins it with 200', async () => {
    const ciRunId = uniqueName('ci');
    const first = await startRun({ ciRunId, shard: { current: 1, total: 2 } });
    const second = await startRun({ ciRunId, shard: { current: 2, total: 2 } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.run.id).toBe(first.run.id);
  });

  it('when results are sent as JSON and then again, then 202 with accepted first and duplicates second', async () => {
    const { run } = await startRun();
    const results = Array.from({ length: 20 }, (_, i) => realisticResult(i));
    const first = await post(`/${PROJECT}/test-runs/${run.id}/results`, { results });
    expect(first.status).toBe(202);
    expect(((await first.json()) as { data: unknown }).data).toEqual({ accepted: 20, duplicates: 0 });
    const again = await post(`/${PROJECT}/test-runs/${run.id}/results`, { results });
    expect(((await again.json()) as { data: unknown }).data).toEqual({ accepted: 0, duplicates: 20 });
  });

  it("when a result's output holds NUL characters (JSON or NDJSON), then it is accepted with each replaced by U+FFFD", async () => {
    const { run } = await startRun();
    const json = await post(`/${PROJECT}/test-runs/${run.id}/results`, {
      results: [{ ...realisticResult(0), stdout: ['binary \u0000 output\n'] }],
    });
    expect(json.status).toBe(202);
    const line = JSON.stringify({ ...realisticResult(1), stderr: ['\u0000'] });
    const ndjson = await post(`/${PROJECT}/test-runs/${run.id}/results`, line, 'application/x-ndjson');
    expect(ndjson.status).toBe(202);
    const { rows } = await db.query<{ stdout: unknown; stderr: unknown }>(
      `SELECT data::json->'item'->'stdout' AS stdout, data::json->'item'->'stderr' AS stderr
       FROM ${storeSchema}.events WHERE type = 'test.result-recorded' AND data::json->>'runId' = $1
       ORDER BY global_position`,
      [run.id],
    );
    expect(rows.map((row) => [row.stdout, row.stderr])).toEqual([
      [['binary \uFFFD output\n'], realisticResult(0).stderr ?? null],
      [realisticResult(1).stdout ?? null, ['\uFFFD']],
    ]);
  });

  it('when results are sent as NDJSON, then each line is a result', async () => {
    const { run } = await startRun();
    const body = [0, 1, 2].map((i) => JSON.stringify(realisticResult(100 + i))).join('\n');
    const answer = await post(`/${PROJECT}/test-runs/${run.id}/results`, body, 'application/x-ndjson');
    expect(answer.status).toBe(202);
    expect(((await answer.json()) as { data: unknown }).data).toEqual({ accepted: 3, duplicates: 0 });
  });

  it('when one item of a batch is bad, then 400 names its index and field and nothing is recorded', async () => {
    const { run } = await startRun();
    const bad = { ...realisticResult(1), durationMs: -5 };
    const answer = await post(`/${PROJECT}/test-runs/${run.id}/results`, {
      results: [realisticResult(0), bad],
    });
    expect(answer.status).toBe(400);
    const body = ErrorEnvelope.parse(await answer.json());
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.message).toContain('results[1].durationMs');
    const retry = await post(`/${PROJECT}/test-runs/${run.id}/results`, { results: [realisticResult(0)] });
    expect(((await retry.json()) as { data: unknown }).data).toEqual({ accepted: 1, duplicates: 0 });
  });

  it('when a duration is beyond 30 days (1e308 ms, say), then 400 names it: sums and means over it would overflow', async () => {
    const { run } = await startRun();
    const answer = await post(`/${PROJECT}/test-runs/${run.id}/results`, {
      results: [{ ...realisticResult(0), durationMs: 1e308 }],
    });
    expect(answer.status).toBe(400);
    expect(ErrorEnvelope.parse(await answer.json()).error.message).toContain('results[0].durationMs');
  });

  it('when steps nest deeper than a parser can follow, then 400 says how deep a body may nest, not a 500', async () => {
    const { run } = await startRun();
    // Written as text: JSON.stringify itself cannot follow 20,000 levels.
    const depth = 20_000;
    const steps = `${'[{"title":"s","durationMs":1,"steps":'.repeat(depth)}[]${'}]'.repeat(depth)}`;
    const deep = JSON.stringify({ ...realisticResult(1), steps: [] }).replace(
      '"steps":[]',
      `"steps":${steps}`,
    );
    const answer = await post(
      `/${PROJECT}/test-runs/${run.id}/results`,
      `{"results":[${JSON.stringify(realisticResult(0))},${deep}]}`,
    );
    expect(answer.status).toBe(400);
    const body = ErrorEnvelope.parse(await answer.json());
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.message).toBe('body: nested deeper than 128 levels');
  });

  it('when a run is finished, then a retried finish answers the same run and results get 409 RUN_FINISHED', async () => {
    const { run } = await startRun();
    const finished = await post(`/${PROJECT}/test-runs/${run.id}/finish`, {});
    expect(finished.status).toBe(200);
    expect(((await finished.json()) as { data: { status: string } }).data.status).toBe('finished');
    expect((await post(`/${PROJECT}/test-runs/${run.id}/finish`, {})).status).toBe(200);
    const late = await post(`/${PROJECT}/test-runs/${run.id}/results`, { results: [realisticResult(0)] });
    expect(late.status).toBe(409);
    expect(ErrorEnvelope.parse(await late.json()).error.code).toBe('RUN_FINISHED');
  });

  it('when an artifact is uploaded, then 201 with its size; over the size limit, 413', async () => {
    const { run } = await startRun();
    const form = (bytes: number) => {
      const data = new FormData();
      data.set('name', 'screenshot.png');
      data.set('contentType', 'image/png');
      data.set('file', new Blob([Buffer.alloc(bytes, 1)], { type: 'image/png' }), 'screenshot.png');
      return data;
    };
    const upload = (bytes: number) =>
      fetch(`${base}/${PROJECT}/test-runs/${run.id}/artifacts`, {
        method: 'POST',
        headers: headers(),
        body: form(bytes),
      });
    const stored = await upload(100);
    expect(stored.status).toBe(201);
    expect(((await stored.json()) as { data: unknown }).data).toMatchObject({
      name: 'screenshot.png',
      contentType: 'image/png',
      size: 100,
    });
    const tooLarge = await upload(5000);
    expect(tooLarge.status).toBe(413);
    expect(ErrorEnvelope.parse(await tooLarge.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('when an artifact upload is replayed, then the same artifact answers and it is stored once', async () => {
    const { run } = await startRun();
    const upload = (content: string) => {
      const data = new FormData();
      data.set('name', 'trace.zip');
      data.set('contentType', 'application/zip');
      data.set('file', new Blob([Buffer.from(content)], { type: 'application/zip' }), 'trace.zip');
      return fetch(`${base}/${PROJECT}/test-runs/${run.id}/artifacts`, {
        method: 'POST',
        headers: headers(),
        body: data,
      });
    };
    const idOf = async (answer: Response) => {
      expect(answer.status).toBe(201);
      return ((await answer.json()) as { data: { id: string } }).data.id;
    };
    const first = await idOf(await upload('the same bytes'));
    expect(await idOf(await upload('the same bytes'))).toBe(first);
    const other = await idOf(await upload('other bytes'));
    expect(other).not.toBe(first);
    const { rows } = await db.query<{ id: string }>(
      `SELECT data::json->'artifact'->>'id' AS id FROM ${storeSchema}.events
       WHERE type = 'run.artifact-added' AND data::json->>'runId' = $1 ORDER BY global_position`,
      [run.id],
    );
    expect(rows.map((row) => row.id)).toEqual([first, other]);
    // The replay's copy of the bytes is gone: one blob per recorded artifact.
    const blobs = readdirSync(path.join(blobDir, PROJECT, run.id)).filter(
      (name) => !name.endsWith('.meta.json'),
    );
    expect(blobs).toHaveLength(2);
  });

  it('when an artifact is uploaded to an unknown run, then 404 and nothing is stored', async () => {
    for (const runId of ['no-such-run', '.hidden']) {
      const data = new FormData();
      data.set('name', 'a.png');
      data.set('contentType', 'image/png');
      data.set('file', new Blob([Buffer.from('png')], { type: 'image/png' }), 'a.png');
      const answer = await fetch(`${base}/${PROJECT}/test-runs/${runId}/artifacts`, {
        method: 'POST',
        headers: headers(),
        body: data,
      });
      expect(answer.status).toBe(404);
      expect(ErrorEnvelope.parse(await answer.json()).error.code).toBe('NOT_FOUND');
      expect(existsSync(path.join(blobDir, PROJECT, runId))).toBe(false);
    }
  });

  it('when an upload sends its file before its fields, then the download link carries the recorded name and type', async () => {
    const { run } = await startRun();
    const data = new FormData();
    data.set('file', new Blob([Buffer.from('plain text')], { type: 'text/html' }), 'evil.html');
    data.set('name', 'report.txt');
    data.set('contentType', 'text/plain');
    const stored = await fetch(`${base}/${PROJECT}/test-runs/${run.id}/artifacts`, {
      method: 'POST',
      headers: headers(),
      body: data,
    });
    expect(stored.status).toBe(201);
    let url: string | undefined;
    // The detail reads the projection: on a loaded machine it can take more than a few seconds to catch up.
    for (const deadline = Date.now() + 20_000; url === undefined && Date.now() < deadline;) {
      const detail = await fetch(`${base}/${PROJECT}/test-runs/${run.id}?include=artifacts&urls=report.txt`, {
        headers: headers(),
      });
      // 404 until the projection has seen the run start.
      const body = (await detail.json()) as { data?: { artifacts: Record<string, { url: string } | null> } };
      url = body.data?.artifacts['report.txt']?.url;
      if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const query = new URL(url ?? 'http://none').searchParams;
    expect([query.get('name'), query.get('type')]).toEqual(['report.txt', 'text/plain']);
  });

  /** Uploads a one-byte artifact with these form fields, sent before the file. */
  const uploadWith = (runId: string, fields: Record<string, string>) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) data.set(name, value);
    data.set('file', new Blob([Buffer.from('x')]), 'x.bin');
    return fetch(`${base}/${PROJECT}/test-runs/${runId}/artifacts`, {
      method: 'POST',
      headers: headers(),
      body: data,
    });
  };

  it('when an upload names its artifact with a NUL, then it is stored with U+FFFD instead (never a 500)', async () => {
    const { run } = await startRun();
    const answer = await uploadWith(run.id, {
      name: 'a\u0000b.txt',
      resultRef: 'r\u0000',
      contentType: 'text/plain',
    });
    expect(answer.status).toBe(201);
    // The answer is API.md's {id, name, contentType, size}: resultRef was stored without a 500 too.
    const { data: artifact } = (await answer.json()) as { data: { name: string } };
    expect(artifact.name).toBe('a\uFFFDb.txt');
  });

  it('when an upload leaves out contentType, then 400 says it is required', async () => {
    const { run } = await startRun();
    const answer = await uploadWith(run.id, { name: 'x.bin' });
    expect(answer.status).toBe(400);
    expect(ErrorEnvelope.parse(await answer.json()).error.message).toBe('contentType: is required');
  });

  it('when an upload names a content type that is not a media type, then 400 names contentType', async () => {
    const { run } = await startRun();
    const answer = await uploadWith(run.id, { name: 'x.bin', contentType: 'notamime' });
    expect(answer.status).toBe(400);
    expect(ErrorEnvelope.parse(await answer.json()).error.message).toContain('content type');
  });

  it('when coverage is added, then 200 with the report (spec §4: API.md states no other status)', async () => {
    const { run } = await startRun();
    const coverage = {
      lines: { total: 10, covered: 8 },
      statements: { total: 10, covered: 8 },
      functions: { total: 4, covered: 3 },
      branches: { total: 6, covered: 3 },
    };
    const answer = await post(`/${PROJECT}/test-runs/${run.id}/coverage`, coverage);
    expect(answer.status).toBe(200);
  });

  it('when coverage holds only some metrics (lcov: no statements; Cobertura: lines and branches), then it is recorded as sent', async () => {
    const { run } = await startRun();
    const cobertura = {
      lines: { total: 10, covered: 8 },
      branches: { total: 6, covered: 3 },
      files: [
        { path: 'src/cart.py', lines: { total: 6, covered: 5 }, branches: { total: 4, covered: 2 } },
        { path: 'src/util.py', lines: { total: 4, covered: 3 } },
      ],
    };
    const answer = await post(`/${PROJECT}/test-runs/${run.id}/coverage`, cobertura);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: unknown }).data).toEqual(cobertura);
  });

  it('when coverage (or one of its files) names no metric at all, then 400 says which entry measures nothing', async () => {
    const { run } = await startRun();
    const empty = await post(`/${PROJECT}/test-runs/${run.id}/coverage`, { files: [] });
    expect(empty.status).toBe(400);
    expect(ErrorEnvelope.parse(await empty.json()).error.message).toContain(
      'needs at least one of lines, statements, functions, branches',
    );
    const emptyFile = await post(`/${PROJECT}/test-runs/${run.id}/coverage`, {
      lines: { total: 1, covered: 1 },
      files: [{ path: 'a.js', lines: { total: 1, covered: 1 } }, { path: 'b.js' }],
    });
    expect(emptyFile.status).toBe(400);
    expect(ErrorEnvelope.parse(await emptyFile.json()).error.message).toMatch(
      /files\.1.*needs at least one of lines, statements, functions, branches|files\[1\].*needs at least one/,
    );
  });

  it('when a run of this project does not exist, then 404 NOT_FOUND', async () => {
    const answer = await post(`/${PROJECT}/test-runs/no-such-run/results`, { results: [] });
    expect(answer.status).toBe(404);
    expect(ErrorEnvelope.parse(await answer.json()).error.code).toBe('NOT_FOUND');
  });

  it('when a result holds a lone surrogate (JSON or NDJSON), then it is accepted with U+FFFD in its place', async () => {
    const { run } = await startRun();
    // Written as text: a JS string with a lone surrogate would be escaped the same way by JSON.stringify.
    const item = JSON.stringify({ ...realisticResult(0), stdout: [] }).replace(
      '"stdout":[]',
      '"stdout":["a\\ud800b"]',
    );
    const json = await post(`/${PROJECT}/test-runs/${run.id}/results`, `{"results":[${item}]}`);
    expect(json.status).toBe(202);
    const title = JSON.stringify(realisticResult(1)).replace('"file":"', '"file":"\\udc00');
    const ndjson = await post(`/${PROJECT}/test-runs/${run.id}/results`, title, 'application/x-ndjson');
    expect(ndjson.status).toBe(202);
    const { rows } = await db.query<{ stdout: unknown; file: string }>(
      `SELECT data::json->'item'->'stdout' AS stdout, data::json->'item'->>'file' AS file
       FROM ${storeSchema}.events WHERE type = 'test.result-recorded' AND data::json->>'runId' = $1
       ORDER BY global_position`,
      [run.id],
    );
    expect(rows[0]?.stdout).toEqual(['a\uFFFDb']);
    expect(rows[1]?.file).toBe(`\uFFFD${realisticResult(1).file}`);
  });

  it('when an import was cut short (its run started, not finished), then sending the report again resumes and finishes that run', async () => {
    const xml = `<testsuites><testsuite name="resume" timestamp="2026-03-01T10:00:00"><testcase classname="r" name="one" time="0.1"/><testcase classname="r" name="two" time="0.1"/></testsuite></testsuites>`;
    // What an import that failed after starting its run leaves: the run under the report's digest, running.
    const ciRunId = `import-${createHash('sha256').update(xml).digest('hex').slice(0, 32)}`;
    const { run: cut } = await startRun({ ciRunId, shard: { current: 1, total: 1 } });
    const answer = await post(`/${PROJECT}/imports/junit`, xml, 'application/xml');
    expect(answer.status).toBe(200);
    const run = ((await answer.json()) as { data: { id: string; status: string } }).data;
    expect(run).toMatchObject({ id: cut.id, status: 'finished' });
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${storeSchema}.events
       WHERE type = 'test.result-recorded' AND data::json->>'runId' = $1`,
      [cut.id],
    );
    expect(rows[0]?.n).toBe(2);
  });

  it('when JUnit XML holds a NUL, then it is imported with U+FFFD in its place', async () => {
    const xml = `<testsuites><testsuite name="s" timestamp="2026-03-01T10:00:00"><testcase classname="c" name="n\u0000x" time="0.1"><failure message="bad\u0000">at x</failure><system-out>out\u0000</system-out></testcase></testsuite></testsuites>`;
    const answer = await post(`/${PROJECT}/imports/junit`, xml, 'application/xml');
    expect(answer.status).toBe(201);
    const run = ((await answer.json()) as { data: { id: string; status: string } }).data;
    expect(run.status).toBe('finished');
    const { rows } = await db.query<{ title: string }>(
      `SELECT data::json->'item'->'titlePath'->>-1 AS title FROM ${storeSchema}.events
       WHERE type = 'test.result-recorded' AND data::json->>'runId' = $1`,
      [run.id],
    );
    expect(rows.map((row) => row.title)).toEqual(['n\uFFFDx']);
  });

  it('when JUnit XML declares ISO-8859-1, then its titles and messages are read in that encoding', async () => {
    const xml = Buffer.from(
      `<?xml version="1.0" encoding="ISO-8859-1"?><testsuite name="s"><testcase classname="c" name="café" time="0.1"><failure message="naïve">x</failure></testcase></testsuite>`,
      'latin1',
    );
    const answer = await post(`/${PROJECT}/imports/junit`, xml, 'application/xml');
    expect(answer.status).toBe(201);
    const run = ((await answer.json()) as { data: { id: string } }).data;
    const { rows } = await db.query<{ title: string; message: string }>(
      `SELECT data::json->'item'->'titlePath'->>-1 AS title, data::json->'item'->'error'->>'message' AS message
       FROM ${storeSchema}.events WHERE type = 'test.result-recorded' AND data::json->>'runId' = $1`,
      [run.id],
    );
    expect(rows).toEqual([{ title: 'café', message: 'naïve' }]);
  });

  it('when JUnit XML from pytest is imported, then 201 with a finished run; replaying it answers 200 with the same run', async () => {
    const xml = readFileSync(path.join(__dirname, '../imports/fixtures/junit/pytest.xml'), 'utf8');
    const first = await post(`/${PROJECT}/imports/junit?branch=main`, xml, 'application/xml');
    expect(first.status).toBe(201);
    const run = ((await first.json()) as { data: { id: string; status: string; branch: string } }).data;
    expect(run).toMatchObject({ status: 'finished', branch: 'main' });
    const replay = await post(`/${PROJECT}/imports/junit?branch=main`, xml, 'application/xml');
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { data: { id: string } }).data.id).toBe(run.id);
  });

  it('when another report is imported under the ciRunId of a finished run, then 409 RUN_FINISHED and the run keeps its results', async () => {
    const pytest = readFileSync(path.join(__dirname, '../imports/fixtures/junit/pytest.xml'), 'utf8');
    const first = await post(`/${PROJECT}/imports/junit?ciRunId=nightly-7`, pytest, 'application/xml');
    expect(first.status).toBe(201);
    const other = `<testsuites><testsuite name="more" tests="1"><testcase classname="more" name="added later" time="0.1"/></testsuite></testsuites>`;
    const second = await post(`/${PROJECT}/imports/junit?ciRunId=nightly-7`, other, 'application/xml');
    expect(second.status).toBe(409);
    expect(ErrorEnvelope.parse(await second.json()).error.code).toBe('RUN_FINISHED');
    const replay = await post(`/${PROJECT}/imports/junit?ciRunId=nightly-7`, pytest, 'application/xml');
    expect(replay.status).toBe(200);
  });

  it('when a report is imported under the ciRunId of a sharded run, then 409 says the ciRunId names several shards', async () => {
    await startRun({ ciRunId: 'sharded-9', shard: { current: 1, total: 2 } });
    const xml = `<testsuites><testsuite name="s"><testcase classname="c" name="n" time="0.1"/></testsuite></testsuites>`;
    const answer = await post(`/${PROJECT}/imports/junit?ciRunId=sharded-9`, xml, 'application/xml');
    expect(answer.status).toBe(409);
    const { error } = ErrorEnvelope.parse(await answer.json());
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe(
      'ciRunId sharded-9 names a run of several shards: import this report under another ciRunId',
    );
  });

  it('when reports are imported with finish=false, then the run stays running, takes the next report, and finishes when told', async () => {
    const ciRunId = uniqueName('many-files');
    const suite = (name: string) =>
      `<testsuites><testsuite name="${name}"><testcase classname="${name}" name="works" time="0.1"/></testsuite></testsuites>`;
    const first = await post(
      `/${PROJECT}/imports/junit?ciRunId=${ciRunId}&finish=false`,
      suite('a'),
      'application/xml',
    );
    expect(first.status).toBe(201);
    const run = ((await first.json()) as { data: { id: string; status: string } }).data;
    expect(run.status).toBe('running');
    const second = await post(
      `/${PROJECT}/imports/junit?ciRunId=${ciRunId}&finish=false`,
      suite('b'),
      'application/xml',
    );
    expect(second.status).toBe(200);
    expect(((await second.json()) as { data: { id: string; status: string } }).data).toMatchObject({
      id: run.id,
      status: 'running',
    });
    const finished = await post(`/${PROJECT}/test-runs/${run.id}/finish`, {
      shard: { current: 1, total: 1 },
    });
    expect(((await finished.json()) as { data: { status: string } }).data.status).toBe('finished');
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${storeSchema}.events
       WHERE type = 'test.result-recorded' AND data::json->>'runId' = $1`,
      [run.id],
    );
    expect(rows[0]?.n).toBe(2);
  });

  it('when finish is neither true nor false, then 400 names it', async () => {
    const answer = await post(`/${PROJECT}/imports/junit?finish=no`, '<testsuite/>', 'application/xml');
    expect(answer.status).toBe(400);
    expect(ErrorEnvelope.parse(await answer.json()).error.message).toContain('finish');
  });

  it('when the files a Playwright report names by path were uploaded to its run first, then the import links each to its result', async () => {
    const ciRunId = uniqueName('pw-paths');
    const { run } = await startRun({ ciRunId, shard: { current: 1, total: 1 } });
    const tracePath = '/home/ci/project/test-results/cart-adds-chromium/trace.zip';
    const trace = await uploadWith(run.id, {
      name: 'trace',
      contentType: 'application/zip',
      resultRef: tracePath,
    });
    const { data: uploaded } = (await trace.json()) as { data: { id: string } };
    const attachment = (name: string, contentType: string, path: string) => ({ name, contentType, path });
    const report = {
      config: { version: '1.65.1', rootDir: '/home/ci/project' },
      stats: { startTime: '2026-03-01T10:00:00.000Z', duration: 1200 },
      suites: [
        {
          title: 'cart.spec.ts',
          specs: [
            {
              title: 'adds',
              file: 'cart.spec.ts',
              line: 3,
              column: 5,
              tests: [
                {
                  projectName: 'chromium',
                  expectedStatus: 'passed',
                  results: [
                    {
                      retry: 0,
                      status: 'passed',
                      duration: 900,
                      startTime: '2026-03-01T10:00:00.100Z',
                      attachments: [
                        attachment('trace', 'application/zip', tracePath),
                        // Never uploaded: left out, as the server cannot read the runner's disk.
                        attachment('video', 'video/webm', '/home/ci/project/test-results/x/video.webm'),
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const answer = await post(`/${PROJECT}/imports/playwright?ciRunId=${ciRunId}`, report);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { id: string; status: string } }).data).toMatchObject({
      id: run.id,
      status: 'finished',
    });
    const { rows } = await db.query<{ attachments: unknown }>(
      `SELECT data::json->'item'->'attachments' AS attachments FROM ${storeSchema}.events
       WHERE type = 'test.result-recorded' AND data::json->>'runId' = $1`,
      [run.id],
    );
    expect(rows.map((row) => row.attachments)).toEqual([
      [{ name: 'trace', contentType: 'application/zip', artifactId: uploaded.id }],
    ]);
  });

  it('when an import body is not a report, then 400 VALIDATION_ERROR', async () => {
    const xml = await post(`/${PROJECT}/imports/junit`, '<testsuites><oops', 'application/xml');
    expect(xml.status).toBe(400);
    expect(ErrorEnvelope.parse(await xml.json()).error.code).toBe('VALIDATION_ERROR');
    const json = await post(`/${PROJECT}/imports/playwright`, { not: 'a report' });
    expect(json.status).toBe(400);
    expect(ErrorEnvelope.parse(await json.json()).error.code).toBe('VALIDATION_ERROR');
  });

  it('when the internal identity is missing, then 401', async () => {
    const answer = await fetch(`${base}/${PROJECT}/test-runs`, { method: 'POST' });
    expect(answer.status).toBe(401);
  });
});
