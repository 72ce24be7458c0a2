import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomPort, startVerdict } from './processes';

// The manual-testing service as a user meets it: `npm start`, the demo token, the public API.
interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
  body: any;
}

describe('manual testing through the gateway (npm start)', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-manual-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when a tester writes cases, runs and results, then the API shows them, links the automated test that names the case, serves and removes attachments and run case evidence, and limits run creation to 10 a minute', async () => {
    const port = randomPort();
    const verdict = startVerdict('start', {
      PORT: String(port),
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    try {
      await verdict.waitFor(`http://localhost:${port}`);
      const projectId = /Project id:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
      const token = /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1] ?? '';
      const base = `http://127.0.0.1:${port}/api/public/v1/${projectId}`;
      const call = async (method: string, url: string, body?: unknown): Promise<Answer> => {
        const response = await fetch(`${base}${url}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: await response.json() };
      };

      const created = await call('POST', '/manual-test-cases', { title: 'Sign in', tags: 'auth,smoke' });
      expect(created.status).toBe(201);
      expect(created.body.data.caseId).toBe('TC-1');
      const patched = await call('PATCH', '/manual-test-cases/TC-1', {
        steps: ['Open /login', 'Submit'],
        comments: ['Covers SSO too'],
        flags: ['To be Automated'],
      });
      expect(patched.body.data.steps.classic).toHaveLength(2);
      expect(patched.body.data.metadata.createdBy.firstName).not.toBe('');
      const listed = await call('GET', '/manual-tests?tags=smoke&sortBy=title');
      expect(listed.body.pagination).toMatchObject({ page: 1, limit: 50, total: 1 });
      expect((await call('GET', '/manual-tests?limit=101')).status).toBe(400);

      // Runs: RUN-1, a result, a correction, history kept.
      const run = await call('POST', '/manual-runs', { name: 'Smoke', caseIds: ['TC-1'] });
      expect(run.status).toBe(201);
      expect(run.body.data.runId).toBe('RUN-1');
      await call('PATCH', '/manual-runs/RUN-1/test-cases/TC-1', { result: 'Failed' });
      const corrected = await call('PATCH', '/manual-runs/RUN-1/test-cases/TC-1', { status: 'passed' });
      expect(corrected.body.data.result).toBe('passed');
      expect(corrected.body.data.history).toHaveLength(2);
      const release = await call('POST', '/releases', { name: '1.0' });
      expect((await call('GET', `/releases/${release.body.data.releaseId}`)).body.data.releaseId).toBe(
        'MS-1',
      );

      // An automated test that names TC-1 is linked when its result arrives.
      const automated = (await call('POST', '/test-runs', { branch: 'main' })).body.data as { id: string };
      await call('POST', `/test-runs/${automated.id}/results`, {
        results: [
          {
            file: 'tests/login.spec.ts',
            titlePath: ['login', 'signs in @TC-1'],
            attempt: 0,
            status: 'passed',
            durationMs: 10,
            startedAt: new Date().toISOString(),
          },
        ],
      });
      let linked: Answer['body'] = null;
      for (let i = 0; i < 100 && !(linked?.linkedTests?.length > 0); i += 1) {
        linked = (await call('GET', '/manual-test-cases/TC-1')).body.data;
        if (!(linked?.linkedTests?.length > 0)) await new Promise((r) => setTimeout(r, 100));
      }
      expect(linked.linkedTests[0]).toMatchObject({
        displayTitle: 'signs in',
        lastResult: { status: 'passed' },
      });

      // Attachments: uploaded through the blob store, downloaded through a signed URL.
      const form = new FormData();
      form.append('file', new Blob(['screenshot bytes'], { type: 'image/png' }), 'login.png');
      const upload = await fetch(`${base}/manual-test-cases/TC-1/attachments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      expect(upload.status).toBe(200);
      const attachment = (
        (await upload.json()) as { data: { _id: string; blobUrl: string; fileSize: number } }
      ).data;
      expect(attachment.fileSize).toBe(16);
      const attachmentUrl = attachment.blobUrl.replace(
        `http://localhost:${port}`,
        `http://127.0.0.1:${port}`,
      );
      const download = await fetch(attachmentUrl);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('screenshot bytes');
      // Removed from the case with its blob: the signed URL it had no longer downloads.
      const removed = await call('DELETE', `/manual-test-cases/TC-1/attachments/${attachment._id}`);
      expect([removed.status, removed.body.data]).toEqual([200, { _id: attachment._id, deleted: true }]);
      expect((await fetch(attachmentUrl)).status).toBe(404);

      // Evidence on a run case: attached, listed by the run with a signed URL, removed with its blob.
      const evidenceRun = await call('POST', '/manual-runs', { name: 'Evidence', caseIds: ['TC-1'] });
      const evidenceForm = new FormData();
      evidenceForm.append('file', new Blob(['failure bytes'], { type: 'image/png' }), 'failure.png');
      const attached = await fetch(
        `${base}/manual-runs/${evidenceRun.body.data._id}/test-cases/TC-1/attachments`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: evidenceForm,
        },
      );
      expect(attached.status).toBe(201);
      const evidence = ((await attached.json()) as { data: { _id: string } }).data;
      const evidenceListed = (await call('GET', `/manual-runs/${evidenceRun.body.data._id}`)).body.data
        .testCases[0].attachments as { _id: string; blobUrl: string }[];
      expect(evidenceListed.map((a) => a._id)).toEqual([evidence._id]);
      const evidenceUrl = evidenceListed[0]!.blobUrl.replace(
        `http://localhost:${port}`,
        `http://127.0.0.1:${port}`,
      );
      expect(await (await fetch(evidenceUrl)).text()).toBe('failure bytes');
      const removal = `/manual-runs/${evidenceRun.body.data._id}/test-cases/TC-1/attachments/${evidence._id}`;
      expect((await call('DELETE', removal)).status).toBe(200);
      expect((await fetch(evidenceUrl)).status).toBe(404);

      // Spec §8: 10 manual runs a minute per token; the first two already counted.
      const statuses: number[] = [];
      for (let i = 0; i < 9; i += 1) {
        statuses.push((await call('POST', '/manual-runs', { name: `run ${i}`, caseIds: ['TC-1'] })).status);
      }
      expect(statuses.slice(0, 8)).toEqual(Array(8).fill(201));
      expect(statuses[8]).toBe(429);
    } finally {
      await verdict.stop();
    }
  });
});
