import { testDatabases } from '@verdict/platform/testing/databases';
import { serviceUnderTest, TESTER } from '../testing';

describe.each(testDatabases())('manual suites and sessions on $name', (database) => {
  const { project } = serviceUnderTest(database.open);

  describe('suites', () => {
    it('when a suite is created, then 200 (spec §4: no other status is stated) with the suite', async () => {
      const created = await project().post('/manual-suites', { name: 'Shop' });
      expect(created.status).toBe(200);
      expect(created.body.data).toMatchObject({ name: 'Shop' });
    });

    it('when suites are nested, then each shows its path from the root and its case count', async () => {
      const p = project();
      const root = (await p.post('/manual-suites', { name: 'Shop', description: 'All of it' })).body.data;
      const child = (await p.post('/manual-suites', { name: 'Cart', parentId: root._id })).body.data;
      await p.post('/manual-test-cases', { title: 'Add', suiteId: child._id });
      const read = (await p.get(`/manual-suites/${child._id}`)).body.data;
      expect(read).toMatchObject({
        name: 'Cart',
        parentId: root._id,
        caseCount: 1,
        path: [
          { _id: root._id, name: 'Shop' },
          { _id: child._id, name: 'Cart' },
        ],
      });
      const top = await p.get('/manual-suites?parentId=null');
      expect(top.body.data.map((s: { name: string }) => s.name)).toEqual(['Shop']);
      const children = await p.get(`/manual-suites?parentId=${root._id}`);
      expect(children.body.data.map((s: { name: string }) => s.name)).toEqual(['Cart']);
    });

    it('when a suite is created under a missing parent or moved inside itself, then 400 naming parentId', async () => {
      const p = project();
      expect((await p.post('/manual-suites', { name: 'x', parentId: 'nope' })).body.error?.message).toContain(
        'parentId',
      );
      const root = (await p.post('/manual-suites', { name: 'A' })).body.data;
      const child = (await p.post('/manual-suites', { name: 'B', parentId: root._id })).body.data;
      const cycle = await p.patch(`/manual-suites/${root._id}`, { parentId: child._id });
      expect(cycle.status).toBe(400);
      expect(cycle.body.error?.message).toContain('parentId');
    });

    it('when a suite is renamed or moved to the top, then it reads back so', async () => {
      const p = project();
      const root = (await p.post('/manual-suites', { name: 'A' })).body.data;
      const child = (await p.post('/manual-suites', { name: 'B', parentId: root._id })).body.data;
      const moved = await p.patch(`/manual-suites/${child._id}`, { name: 'B2', parentId: null });
      expect(moved.body.data).toMatchObject({
        name: 'B2',
        parentId: null,
        path: [{ _id: child._id, name: 'B2' }],
      });
    });

    it('when a suite holding cases or suites is deleted, then 409 CONFLICT; once empty it is deleted and reads 404', async () => {
      const p = project();
      const suite = (await p.post('/manual-suites', { name: 'A' })).body.data;
      await p.post('/manual-test-cases', { title: 'In A', suiteId: suite._id });
      const refused = await p.delete(`/manual-suites/${suite._id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.error?.code).toBe('CONFLICT');
      await p.patch('/manual-test-cases/TC-1', { suiteId: null });
      expect((await p.delete(`/manual-suites/${suite._id}`)).body.data).toEqual({
        _id: suite._id,
        deleted: true,
      });
      expect((await p.get(`/manual-suites/${suite._id}`)).status).toBe(404);
    });

    it('when a suite body is invalid, then 400 VALIDATION_ERROR naming the field', async () => {
      const p = project();
      expect((await p.post('/manual-suites', { name: '' })).body.error?.message).toContain('name');
      expect((await p.get('/manual-suites?limit=500')).body.error?.message).toContain('limit');
    });
  });

  describe('sessions', () => {
    it('when a session is created, then 200 (spec §4: no other status is stated), planned, with its charter, findings and assignee', async () => {
      const p = project();
      const created = await p.post('/sessions', {
        charter: 'Explore checkout with expired cards',
        findings: [
          'Error message is vague',
          { title: 'Crash on retry', severity: 'Critical', issueKey: 'JIRA-9' },
        ],
        assigneeUserId: TESTER.email,
      });
      expect(created.status).toBe(200);
      expect(created.body.data).toMatchObject({
        charter: 'Explore checkout with expired cards',
        status: 'planned',
        startedAt: null,
        assignee: { _id: TESTER.userId },
        findings: [
          { title: 'Error message is vague', severity: 'not_set', issueKey: null },
          { title: 'Crash on retry', severity: 'critical', issueKey: 'JIRA-9' },
        ],
      });
    });

    it('when a session starts and completes, then startedAt and completedAt are set; it cannot go back', async () => {
      const p = project();
      const { _id } = (await p.post('/sessions', { charter: 'Explore' })).body.data;
      const started = await p.patch(`/sessions/${_id}`, { status: 'in_progress', notes: 'Going' });
      expect(started.body.data.startedAt).not.toBeNull();
      const done = await p.patch(`/sessions/${_id}`, { status: 'completed' });
      expect(done.body.data).toMatchObject({ status: 'completed', notes: 'Going' });
      expect(done.body.data.completedAt).not.toBeNull();
      const back = await p.patch(`/sessions/${_id}`, { status: 'planned' });
      expect(back.status).toBe(400);
      expect(back.body.error?.message).toContain('status');
    });

    it('when a session is given a time box, then it shows it; PATCH changes or clears it, and a box that is not a positive number of minutes is a 400', async () => {
      const p = project();
      const created = await p.post('/sessions', { charter: 'Explore refunds', timeBoxMinutes: 45 });
      expect(created.body.data).toMatchObject({ timeBoxMinutes: 45 });
      const { _id } = created.body.data;
      expect((await p.post('/sessions', { charter: 'No box' })).body.data.timeBoxMinutes).toBeNull();
      expect((await p.patch(`/sessions/${_id}`, { timeBoxMinutes: 90 })).body.data.timeBoxMinutes).toBe(90);
      expect((await p.patch(`/sessions/${_id}`, { notes: 'kept' })).body.data.timeBoxMinutes).toBe(90);
      expect(
        (await p.patch(`/sessions/${_id}`, { timeBoxMinutes: null })).body.data.timeBoxMinutes,
      ).toBeNull();
      for (const timeBoxMinutes of [0, -5, 1.5, '30', 10_081]) {
        const refused = await p.post('/sessions', { charter: 'Bad box', timeBoxMinutes });
        expect(refused.status).toBe(400);
        expect(refused.body.error?.message).toContain('timeBoxMinutes');
      }
    });

    it('when sessions are listed, then filtered by status and release, and an invalid status is a 400', async () => {
      const p = project();
      const release = (await p.post('/releases', { name: '1.0' })).body.data;
      await p.post('/sessions', { charter: 'One', releaseId: release.releaseId });
      await p.post('/sessions', { charter: 'Two', status: 'in_progress' });
      expect(
        (await p.get('/sessions?status=in_progress')).body.data.map((s: { charter: string }) => s.charter),
      ).toEqual(['Two']);
      expect(
        (await p.get('/sessions?releaseId=MS-1')).body.data.map((s: { charter: string }) => s.charter),
      ).toEqual(['One']);
      expect((await p.get('/sessions?status=paused')).status).toBe(400);
      expect((await p.get('/sessions/nope')).status).toBe(404);
      expect((await p.post('/sessions', { charter: 'x', releaseId: 'MS-5' })).body.error?.message).toContain(
        'releaseId',
      );
    });
  });
});
