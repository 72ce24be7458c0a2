import {
  ManualRunCaseAttachmentAdded,
  ManualRunCaseAttachmentRemoved,
  ManualRunCreated,
} from '@verdict/contracts';
import type { SqlDatabase } from '@verdict/platform';
import { testDatabases } from '@verdict/platform/testing/databases';
import { projectionSpec } from '@verdict/platform/testing/projections';
import type { ManualReadModels } from '../shared/readStore';
import { emptyReadModels, readStoreOf, serviceUnderTest, TESTER } from '../testing';
import { runDetail, runProgressProjection } from './runProgress';

// A PNG's signature and the start of its header: bytes no text transcoding would keep.
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0x00]);

function formOf(bytes: Uint8Array | string, name: string, type: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [field, value] of Object.entries(fields)) form.append(field, value);
  form.append('file', new Blob([bytes], { type }), name);
  return form;
}

describe.each(testDatabases())('run case evidence on $name', (database) => {
  const { project } = serviceUnderTest(database.open);

  /** A project with TC-1 and TC-2 and a run RUN-1 of both. */
  async function runOfTwoCases() {
    const p = project();
    await p.post('/manual-test-cases', { title: 'Log in' });
    await p.post('/manual-test-cases', { title: 'Pay' });
    const run = (await p.post('/manual-runs', { name: 'Regression' })).body.data;
    return { p, run };
  }

  it('when a tester attaches a screenshot to a failed run case, then 201 with the attachment, and the run lists it with a signed URL and a history entry', async () => {
    const { p, run } = await runOfTwoCases();
    await p.patch(`/manual-runs/RUN-1/test-cases/TC-2`, { result: 'failed' });
    const answer = await p.post(
      `/manual-runs/${run._id}/test-cases/TC-2/attachments`,
      formOf(PNG, 'checkout error.png', 'image/png', { stepRef: '2' }),
      { userId: TESTER.userId, role: 'member' as const },
    );
    expect(answer.status).toBe(201);
    expect(answer.body.data).toEqual({
      _id: expect.any(String),
      fileName: 'checkout_error.png',
      originalFileName: 'checkout error.png',
      fileSize: PNG.byteLength,
      mimeType: 'image/png',
      blobUrl: expect.stringMatching(/^http:\/\/localhost\/.+/),
      uploadedAt: expect.any(String),
      stepRef: '2',
    });

    const detail = (await p.get('/manual-runs/RUN-1')).body.data;
    const runCase = detail.testCases[1];
    expect(runCase.result).toBe('failed');
    expect(runCase.attachments).toEqual([{ ...answer.body.data, blobUrl: expect.any(String) }]);
    expect(detail.testCases[0].attachments).toEqual([]);
    expect(runCase.history.at(-1)).toMatchObject({
      mode: 'evidence',
      evidence: {
        action: 'attached',
        attachmentId: answer.body.data._id,
        originalFileName: 'checkout error.png',
      },
      result: null,
      by: { _id: TESTER.userId },
    });
  });

  it('when evidence is removed, then 200, it is no longer listed, the history keeps both entries, and removing it again answers the same', async () => {
    const { p, run } = await runOfTwoCases();
    const runCaseId = run.testCases[0]._id;
    const attached = await p.post(
      `/manual-runs/RUN-1/test-cases/${runCaseId}/attachments`,
      formOf('GET /login 500', 'server.log', 'text/plain'),
    );
    const path = `/manual-runs/RUN-1/test-cases/TC-1/attachments/${attached.body.data._id}`;
    const removed = await p.delete(path);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ _id: attached.body.data._id, deleted: true });
    const again = await p.delete(path);
    expect([again.status, again.body.data]).toEqual([200, removed.body.data]);

    const runCase = (await p.get('/manual-runs/RUN-1')).body.data.testCases[0];
    expect(runCase.attachments).toEqual([]);
    expect(
      runCase.history.map((h: { mode: string; evidence?: { action: string } }) => [
        h.mode,
        h.evidence?.action,
      ]),
    ).toEqual([
      ['evidence', 'attached'],
      ['evidence', 'removed'],
    ]);
  });

  it('when the run, the run case or the attachment is unknown, then 404 NOT_FOUND', async () => {
    const { p } = await runOfTwoCases();
    const file = () => formOf('x', 'a.txt', 'text/plain');
    const attached = await p.post('/manual-runs/RUN-1/test-cases/TC-1/attachments', file());
    const answers = [
      await p.post('/manual-runs/RUN-9/test-cases/TC-1/attachments', file()),
      await p.post('/manual-runs/RUN-1/test-cases/TC-3/attachments', file()),
      await p.delete('/manual-runs/RUN-1/test-cases/TC-1/attachments/nothing-here'),
      // An attachment of another run case is not this one's.
      await p.delete(`/manual-runs/RUN-1/test-cases/TC-2/attachments/${attached.body.data._id}`),
    ];
    expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual(Array(4).fill([404, 'NOT_FOUND']));
  });

  it('when the body is not a multipart file, is too large or names too long a step, then 400 or 413 with the code, and nothing is listed', async () => {
    const { p } = await runOfTwoCases();
    const url = '/manual-runs/RUN-1/test-cases/TC-1/attachments';
    const json = await p.post(url, { file: 'not multipart' });
    const noFile = new FormData();
    noFile.append('stepRef', '1');
    const missing = await p.post(url, noFile);
    // The test service accepts at most 1024 bytes.
    const large = await p.post(url, formOf('x'.repeat(1025), 'big.log', 'text/plain'));
    const longStep = await p.post(url, formOf('x', 'a.txt', 'text/plain', { stepRef: 's'.repeat(101) }));
    expect(
      [json, missing, large, longStep].map((a) => [a.status, a.body.error?.code, a.body.error?.message]),
    ).toEqual([
      [400, 'VALIDATION_ERROR', expect.stringContaining('multipart')],
      [400, 'VALIDATION_ERROR', expect.stringContaining('file')],
      [413, 'PAYLOAD_TOO_LARGE', expect.stringContaining('1024')],
      [400, 'VALIDATION_ERROR', expect.stringContaining('stepRef')],
    ]);
    expect((await p.get('/manual-runs/RUN-1')).body.data.testCases[0].attachments).toEqual([]);
  });

  it('when a viewer attaches or removes evidence, then 403 FORBIDDEN; a viewer reads it', async () => {
    const { p } = await runOfTwoCases();
    const url = '/manual-runs/RUN-1/test-cases/TC-1/attachments';
    const attached = await p.post(url, formOf('x', 'a.txt', 'text/plain'));
    const viewer = { role: 'viewer' } as const;
    const upload = await p.post(url, formOf('x', 'b.txt', 'text/plain'), viewer);
    const removal = await p.delete(`${url}/${attached.body.data._id}`, viewer);
    expect([upload.status, upload.body.error?.code, removal.status]).toEqual([403, 'FORBIDDEN', 403]);
    const read = await p.get('/manual-runs/RUN-1', viewer);
    expect(read.body.data.testCases[0].attachments.map((a: { _id: string }) => a._id)).toEqual([
      attached.body.data._id,
    ]);
  });
});

describe.each(testDatabases())('run case evidence in the run progress read model on $name', ({ open }) => {
  let db: SqlDatabase;
  let others: ManualReadModels;
  beforeAll(async () => {
    db = await open();
    others = await emptyReadModels(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it('when evidence events are projected twice, then each run case lists what is left once and its history each change once', async () => {
    const streamId = 'mt-run-e1';
    const attachment = (id: string) => ({
      id,
      fileName: `${id}.png`,
      originalFileName: `${id}.png`,
      fileSize: 3,
      mimeType: 'image/png',
      blobKey: `manual/project-1/runs/e1/rc1/${id}`,
      stepRef: null,
    });
    const at = '2026-03-01T10:00:00.000Z';
    const event = { runId: 'e1', refId: 'rc1', by: 'user-1', at };
    await projectionSpec({ db, projection: runProgressProjection })
      .given([
        {
          ...ManualRunCreated.of({
            runId: 'e1',
            projectId: 'project-1',
            number: 1,
            name: 'Regression',
            description: '',
            releaseId: null,
            assigneeUserId: null,
            cases: [{ refId: 'rc1', caseId: 'c1', number: 1, title: 'Log in', revision: 1 }],
            by: 'user-1',
            at,
          }),
          streamId,
        },
      ])
      .when([
        { ...ManualRunCaseAttachmentAdded.of({ ...event, attachment: attachment('a1') }), streamId },
        { ...ManualRunCaseAttachmentAdded.of({ ...event, attachment: attachment('a2') }), streamId },
        { ...ManualRunCaseAttachmentRemoved.of({ ...event, attachment: attachment('a1') }), streamId },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = readStoreOf(db, { ...others, runProgress: schema });
        const runCase = (await runDetail(read, 'project-1', 'e1'))?.testCases[0];
        expect(runCase?.attachments.map((a) => [a._id, a.uploadedAt])).toEqual([['a2', at]]);
        expect(runCase?.history.map((h) => [h.evidence?.action, h.evidence?.attachmentId])).toEqual([
          ['attached', 'a1'],
          ['attached', 'a2'],
          ['removed', 'a1'],
        ]);
      });
  });
});
