import { testDatabases } from '@verdict/platform/testing/databases';
import { serviceUnderTest, TESTER } from '../testing';

function fileForm(text: string, name: string, type = 'text/plain') {
  const form = new FormData();
  form.append('file', new Blob([text], { type }), name);
  return form;
}

describe.each(testDatabases())('manual test case attachments on $name', (database) => {
  const { project } = serviceUnderTest(database.open);

  /** A fresh project with TC-1 and TC-2, and a file attached to TC-1. */
  async function caseWithAFile() {
    const p = project();
    await p.post('/manual-test-cases', { title: 'Log in' });
    await p.post('/manual-test-cases', { title: 'Pay' });
    const attached = await p.post('/manual-test-cases/TC-1/attachments', fileForm('shot', 'login.png'));
    expect(attached.status).toBe(200);
    return { p, attachment: attached.body.data as { _id: string; blobUrl: string } };
  }

  it('when a tester removes a file from a case, then 200 {_id, deleted}, the case no longer lists it, its history names the removal, and removing it again answers the same', async () => {
    const { p, attachment } = await caseWithAFile();
    const kept = await p.post('/manual-test-cases/TC-1/attachments', fileForm('log', 'server.log'));
    const path = `/manual-test-cases/TC-1/attachments/${attachment._id}`;
    const tester = { userId: TESTER.userId, role: 'member' as const };

    const removed = await p.delete(path, tester);
    expect([removed.status, removed.body.data]).toEqual([200, { _id: attachment._id, deleted: true }]);
    const again = await p.delete(path, tester);
    expect([again.status, again.body.data]).toEqual([200, removed.body.data]);

    const detail = (await p.get('/manual-test-cases/TC-1')).body.data;
    expect(detail.attachments.map((a: { _id: string }) => a._id)).toEqual([kept.body.data._id]);
    // One entry for the removal, none for the repeated one.
    expect(detail.history.map((h: { kind: string }) => h.kind)).toEqual([
      'attachment-removed',
      'attachment-added',
      'attachment-added',
      'created',
    ]);
    const history = (await p.get('/manual-test-cases/TC-1/history')).body.data;
    expect(history[0]).toMatchObject({
      kind: 'attachment-removed',
      revision: 1,
      by: { _id: TESTER.userId },
      changes: { attachments: { from: 'login.png', to: null } },
    });
  });

  it('when the case or the attachment is unknown, or the file is another case’s, then 404 NOT_FOUND and nothing is removed', async () => {
    const { p, attachment } = await caseWithAFile();
    const answers = [
      await p.delete('/manual-test-cases/TC-1/attachments/nothing-here'),
      await p.delete(`/manual-test-cases/TC-2/attachments/${attachment._id}`),
      await p.delete(`/manual-test-cases/TC-9/attachments/${attachment._id}`),
    ];
    expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual(Array(3).fill([404, 'NOT_FOUND']));
    const detail = (await p.get('/manual-test-cases/TC-1')).body.data;
    expect(detail.attachments.map((a: { _id: string }) => a._id)).toEqual([attachment._id]);
  });

  it('when a viewer removes a file, then 403 FORBIDDEN and the case still lists it', async () => {
    const { p, attachment } = await caseWithAFile();
    const answer = await p.delete(`/manual-test-cases/TC-1/attachments/${attachment._id}`, {
      role: 'viewer',
    });
    expect([answer.status, answer.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    const detail = (await p.get('/manual-test-cases/TC-1', { role: 'viewer' })).body.data;
    expect(detail.attachments.map((a: { _id: string }) => a._id)).toEqual([attachment._id]);
  });
});
