import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeadLetterRecord } from '@verdict/contracts';
import { createSqlEventStore } from '@verdict/platform';
import { createPGliteDatabase } from '@verdict/platform/pglite';
import { randomPort, repoRoot, startProcess, type RunningProcess } from './processes';

// Dead letters in the embedded mode, as an operator meets them: `npm start`, a poison event in the store,
// then /metrics, the log, the admin API and `npm run dlq` (run as npm runs it: node scripts/run.cjs dlq).

const run = (command: string, args: string[], env: NodeJS.ProcessEnv) =>
  startProcess(process.execPath, [path.join(repoRoot, 'scripts/run.cjs'), command, ...args], env);

async function dlq(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const cli = run('dlq', args, env);
  const code = await cli.exited;
  return { code, output: cli.output() };
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe('dead letters of the embedded mode (npm start, npm run dlq)', () => {
  let dataDir: string;
  let verdict: RunningProcess | null = null;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-dlq-'));
  });
  afterEach(async () => {
    await verdict?.stop();
    verdict = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when a consumer cannot handle an event, then /metrics counts it, the log names it once, the admin API and `npm run dlq -- list` show it, and `replay --event` sends it to its consumers again (which fail it again: times 2)', async () => {
    const port = randomPort();
    const env = { PORT: String(port), VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    verdict = run('start', [], env);
    await verdict.waitFor('Verdict is running (embedded mode)');
    const projectId = /Project id:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
    const adminKey = /Admin key:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
    expect(await verdict.stop('SIGTERM')).toBe(0);

    // A result event no version of Verdict could have written: every consumer of results refuses it.
    const eventId = randomUUID();
    const db = await createPGliteDatabase({ dataDir: path.join(dataDir, 'pglite') });
    try {
      await createSqlEventStore({ db, schema: 'test_results' }).append(
        `run-${randomUUID()}-results`,
        [{ eventId, type: 'test.result-recorded', version: 1, data: { runId: 'r', item: { file: 42 } } }],
        { expectedVersion: 'no_stream', projectId },
      );
    } finally {
      await db.close();
    }
    verdict = run('start', [], env);
    await verdict.waitFor('Verdict is running (embedded mode)');
    const base = `http://127.0.0.1:${port}`;
    const admin = async (urlPath: string) => {
      const response = await fetch(`${base}/admin/v1${urlPath}`, {
        headers: { authorization: `Bearer ${adminKey}` },
      });
      return {
        status: response.status,
        body: (await response.json()) as { data: unknown; pagination: Record<string, unknown> },
      };
    };

    // The consumers of the topic that read results; manual testing's links look only at titles naming a case.
    const consumers = ['projector.analytics', 'projector.test_results_read', 'webhooks.dispatcher'];
    const listed = await eventually(
      () => admin(`/dead-letters?eventId=${eventId}`),
      (answer) =>
        consumers.every((consumer) =>
          (answer.body.data as DeadLetterRecord[]).some((letter) => letter.consumer === consumer),
        ),
    );
    expect(listed.status).toBe(200);
    const letters = DeadLetterRecord.array().parse(listed.body.data);
    expect(letters.map((letter) => letter.consumer).sort()).toEqual(consumers);
    for (const letter of letters) {
      expect(letter).toMatchObject({ eventId, eventType: 'test.result-recorded', topic: 'test-results' });
      expect(letter.status).toBe('pending');
      expect(letter.error).toMatch(/^ZodError: /);
    }
    const onePage = await admin(`/dead-letters?eventId=${eventId}&limit=1`);
    expect(onePage.body.pagination).toMatchObject({ limit: 1, total: letters.length, hasNext: true });

    const metrics = await (await fetch(`${base}/metrics`)).text();
    for (const consumer of consumers) {
      expect(metrics).toMatch(
        new RegExp(`verdict_dead_letters_total\\{topic="test-results",consumer="${consumer}"[^}]*\\} 1\\n`),
      );
    }
    // One log line per dead letter, with the event id and the error.
    const lines = verdict
      .output()
      .split('\n')
      .filter((line) => line.includes('"message dead-lettered"'))
      .map((line) => JSON.parse(line) as { eventId: string; error: string; groupId: string });
    expect(lines.map((line) => line.groupId).sort()).toEqual(letters.map((letter) => letter.consumer).sort());
    for (const line of lines)
      expect(line).toMatchObject({ eventId, error: expect.stringMatching(/^ZodError/) });

    const cliEnv = { PORT: String(port), VERDICT_DATA_DIR: dataDir };
    const list = await dlq(['list', '--event', eventId], cliEnv);
    expect(list.code).toBe(0);
    for (const letter of letters) expect(list.output).toContain(letter.id);
    expect(list.output).toContain(`${letters.length} dead letters`);

    const replay = await dlq(['replay', '--event', eventId], cliEnv);
    expect(replay.code).toBe(0);
    expect(replay.output.match(/^replayed /gm)).toHaveLength(letters.length);
    const again = await eventually(
      async () => {
        const json = await dlq(['list', '--json', '--event', eventId], cliEnv);
        return json.output
          .trim()
          .split('\n')
          .map((line) => DeadLetterRecord.parse(JSON.parse(line)));
      },
      (found) => found.every((letter) => letter.times === 2 && letter.status === 'pending'),
    );
    expect(again.map((letter) => [letter.id, letter.times, letter.status])).toEqual(
      letters.map((letter) => [letter.id, 2, 'pending']),
    );

    const usage = await dlq(['replay', '--event'], cliEnv);
    expect(usage.code).toBe(2);
    expect(usage.output).toContain('Usage:');
  });
});
