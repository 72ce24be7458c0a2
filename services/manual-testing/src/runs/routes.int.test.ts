import { testDatabases } from '@verdict/platform/testing/databases';
import { OWNER, serviceUnderTest, TESTER } from '../testing';

describe.each(testDatabases())('manual runs and releases on $name', (database) => {
  const { project } = serviceUnderTest(database.open);

  /** A project with a suite (nested) of cases, and TC-1 … TC-3. */
  async function seeded() {
    const p = project();
    const parent = (await p.post('/manual-suites', { name: 'Shop' })).body.data;
    const child = (await p.post('/manual-suites', { name: 'Cart', parentId: parent._id })).body.data;
    await p.post('/manual-test-cases', { title: 'Open shop', suiteId: parent._id });
    await p.post('/manual-test-cases', { title: 'Add to cart', suiteId: child._id });
    await p.post('/manual-test-cases', { title: 'Unrelated' });
    return { p, parent, child };
  }

  async function runOf(p: ReturnType<typeof project>, body: Record<string, unknown>) {
    const answer = await p.post('/manual-runs', { name: 'Regression', ...body });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  describe('create, list and get (spec §4.4)', () => {
    it('when a run is created from cases and suites, then 201 with RUN-1, every run case untested, suites taken with their sub-suites', async () => {
      const { p, parent } = await seeded();
      const run = await runOf(p, { suiteIds: [parent._id], caseIds: ['TC-3'] });
      expect(run).toMatchObject({ runId: 'RUN-1', name: 'Regression', status: 'not_started' });
      expect(run.testCases.map((c: { caseRef: { caseId: string } }) => c.caseRef.caseId)).toEqual([
        'TC-1',
        'TC-2',
        'TC-3',
      ]);
      expect(run.testCases.every((c: { result: string }) => c.result === 'untested')).toBe(true);
      expect(run.progress).toMatchObject({ total: 3, untested: 3, completed: 0, percentComplete: 0 });
    });

    it('when a run names neither cases nor suites, then it holds every case of the project; without any case, 400', async () => {
      const { p } = await seeded();
      const run = await runOf(p, {});
      expect(run.testCases.map((c: { caseRef: { caseId: string } }) => c.caseRef.caseId)).toEqual([
        'TC-1',
        'TC-2',
        'TC-3',
      ]);
      const empty = await project().post('/manual-runs', { name: 'Nothing yet' });
      expect(empty.status).toBe(400);
      expect(empty.body.error?.message).toContain('no manual test cases');
    });

    it('when a run is read by _id, RUN-<n> or run-<n>, then it is the same run; a missing one is 404', async () => {
      const { p } = await seeded();
      const run = await runOf(p, { caseIds: ['TC-1'] });
      expect((await p.get(`/manual-runs/${run._id}`)).body.data.runId).toBe('RUN-1');
      expect((await p.get('/manual-runs/run-1')).body.data._id).toBe(run._id);
      const missing = await p.get('/manual-runs/RUN-9');
      expect(missing.status).toBe(404);
      expect(missing.body.error?.code).toBe('NOT_FOUND');
    });

    it.each([
      ['no name', { caseIds: ['TC-1'] }, 'name'],
      ['lists of cases and suites that name nothing', { name: 'x', caseIds: [], suiteIds: [] }, 'caseIds'],
      ['an empty list of suites', { name: 'x', suiteIds: [] }, 'suiteIds: name at least one'],
      ['an unknown case', { name: 'x', caseIds: ['TC-77'] }, 'caseIds'],
      ['an unknown suite', { name: 'x', suiteIds: ['nope'] }, 'suiteIds'],
      ['an unknown release', { name: 'x', caseIds: ['TC-1'], releaseId: 'MS-9' }, 'releaseId'],
      [
        'an unknown assignee',
        { name: 'x', caseIds: ['TC-1'], assigneeUserId: 'nobody@example.com' },
        'assigneeUserId',
      ],
    ])('when a run is created with %s, then 400 VALIDATION_ERROR naming it', async (_what, body, named) => {
      const { p } = await seeded();
      const answer = await p.post('/manual-runs', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.message).toContain(named);
    });

    it('when runs are listed, then newest first, paginated, filtered by status and release', async () => {
      const { p } = await seeded();
      const release = (await p.post('/releases', { name: '1.0' })).body.data;
      await runOf(p, { caseIds: ['TC-1'] });
      const second = await runOf(p, { caseIds: ['TC-1'], releaseId: release.releaseId });
      await p.patch(`/manual-runs/${second.runId}/test-cases/TC-1`, { result: 'passed' });
      const all = await p.get('/manual-runs?limit=1');
      expect(all.body.data.map((r: { runId: string }) => r.runId)).toEqual(['RUN-2']);
      expect(all.body.pagination).toEqual({ page: 1, limit: 1, total: 2, hasNext: true, hasPrev: false });
      const completed = await p.get('/manual-runs?status=completed');
      expect(completed.body.data.map((r: { runId: string }) => r.runId)).toEqual(['RUN-2']);
      const ofRelease = await p.get(`/manual-runs?releaseId=${release._id}`);
      expect(ofRelease.body.data.map((r: { runId: string }) => r.runId)).toEqual(['RUN-2']);
      expect((await p.get('/manual-runs?status=done')).status).toBe(400);
    });
  });

  describe('update a run case (spec §4.4)', () => {
    let p: ReturnType<typeof project>;
    let run: { _id: string; runId: string; testCases: { _id: string; caseRef: { _id: string } }[] };

    beforeEach(async () => {
      ({ p } = await seeded());
      run = await runOf(p, { caseIds: ['TC-1', 'TC-2'] });
    });

    it('when a run case is addressed by reference, TC-<n> or case _id, then the same run case is updated', async () => {
      const [first] = run.testCases;
      const byRef = await p.patch(`/manual-runs/${run.runId}/test-cases/${first!._id}`, { result: 'failed' });
      const byKey = await p.patch(`/manual-runs/${run._id}/test-cases/TC-1`, { result: 'blocked' });
      const byCase = await p.patch(`/manual-runs/${run.runId}/test-cases/${first!.caseRef._id}`, {
        result: 'retest',
      });
      expect([byRef.body.data._id, byKey.body.data._id, byCase.body.data._id]).toEqual([
        first!._id,
        first!._id,
        first!._id,
      ]);
      expect(byCase.body.data.result).toBe('retest');
    });

    it.each([
      ['Passed', 'passed'],
      ['passed', 'passed'],
      ['RETEST', 'retest'],
      ['Blocked', 'blocked'],
      ['skipped', 'skipped'],
      ['Untested', 'untested'],
    ])('when the result is %s, then it is stored as %s', async (given, stored) => {
      const answer = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, { result: given });
      expect(answer.status).toBe(200);
      expect(answer.body.data.result).toBe(stored);
    });

    it('when status is sent, then it is the alias of result; both with different values are refused', async () => {
      const alias = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, { status: 'Failed' });
      expect(alias.body.data.result).toBe('failed');
      const both = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, {
        status: 'failed',
        result: 'passed',
      });
      expect(both.status).toBe(400);
      expect(both.body.error?.message).toContain('status');
    });

    it.each([
      ['a quick and a detailed field', { result: 'passed', comment: 'ok' }, 'cannot be mixed'],
      ['an assignee and step results', { assigneeUserId: null, stepResults: [] }, 'cannot be mixed'],
      ['nothing', {}, 'quick verdict'],
      ['a negative elapsed', { elapsed: -1 }, 'elapsed'],
      ['an unknown result', { result: 'green' }, 'result'],
      ['an unknown field', { verdict: 'passed' }, 'verdict'],
      [
        'a step result of unknown status',
        { stepResults: [{ order: 1, status: 'meh' }] },
        'stepResults[0].status',
      ],
      ['an unknown assignee', { assigneeUserId: 'stranger' }, 'assigneeUserId'],
    ])('when the body has %s, then 400 VALIDATION_ERROR', async (_what, body, named) => {
      const answer = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, body);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error?.message).toContain(named);
    });

    it('when the run or the run case is missing, then 404 NOT_FOUND', async () => {
      expect((await p.patch('/manual-runs/RUN-99/test-cases/TC-1', { result: 'passed' })).status).toBe(404);
      expect((await p.patch(`/manual-runs/${run.runId}/test-cases/TC-3`, { result: 'passed' })).status).toBe(
        404,
      );
    });

    it('when assigneeUserId is an e-mail or an _id, then the user is assigned; null unassigns', async () => {
      const byMail = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, {
        assigneeUserId: 'BOB@example.com',
      });
      expect(byMail.body.data.assignee).toEqual({
        _id: TESTER.userId,
        firstName: 'Bob',
        lastName: 'Tester',
        email: TESTER.email,
      });
      const byId = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, {
        assigneeUserId: OWNER.userId,
      });
      expect(byId.body.data.assignee._id).toBe(OWNER.userId);
      const none = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, { assigneeUserId: null });
      expect(none.body.data.assignee).toBeNull();
    });

    it('when elapsed is 0 or more, then it is kept in seconds', async () => {
      const answer = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, {
        result: 'passed',
        elapsed: 0,
      });
      expect(answer.body.data.elapsed).toBe(0);
    });

    it('when a detailed result is sent, then its comment, linked issues and step results are kept and the result stays', async () => {
      await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, { result: 'failed' });
      const answer = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, {
        comment: '<p>Button <b>greyed</b></p>',
        linkedIssues: [{ key: 'JIRA-7', url: 'https://jira.example.com/JIRA-7' }],
        stepResults: [
          { order: 1, status: 'Passed' },
          { order: 2, status: 'failed', comment: 'no button' },
        ],
      });
      expect(answer.body.data).toMatchObject({
        result: 'failed',
        comment: '<p>Button <b>greyed</b></p>',
        linkedIssues: [{ key: 'JIRA-7', url: 'https://jira.example.com/JIRA-7' }],
        stepResults: [
          { order: 1, status: 'passed', comment: '' },
          { order: 2, status: 'failed', comment: 'no button' },
        ],
      });
    });

    it('when a result is corrected, then every result is kept with who set it and when, and the current one is the latest', async () => {
      await p.patch(
        `/manual-runs/${run.runId}/test-cases/TC-1`,
        { result: 'failed' },
        { userId: TESTER.userId },
      );
      await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, { comment: 'It was the test data' });
      const corrected = await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, { result: 'passed' });
      expect(corrected.body.data.result).toBe('passed');
      const history = corrected.body.data.history as {
        mode: string;
        result: string | null;
        by: { _id: string };
        comment: string | null;
        at: string;
      }[];
      expect(history.map((h) => [h.mode, h.result, h.by._id])).toEqual([
        ['quick', 'failed', TESTER.userId],
        ['detailed', null, OWNER.userId],
        ['quick', 'passed', OWNER.userId],
      ]);
      expect(history[1]!.comment).toBe('It was the test data');
      const detail = (await p.get(`/manual-runs/${run.runId}`)).body.data;
      expect(detail.testCases[0].history).toHaveLength(3);
    });

    it('when results come in, then the run progress and status follow', async () => {
      await p.patch(`/manual-runs/${run.runId}/test-cases/TC-1`, { result: 'passed' });
      const midway = (await p.get(`/manual-runs/${run.runId}`)).body.data;
      expect(midway.status).toBe('in_progress');
      expect(midway.progress).toMatchObject({
        total: 2,
        passed: 1,
        untested: 1,
        completed: 1,
        percentComplete: 50,
        passRate: 100,
      });
      await p.patch(`/manual-runs/${run.runId}/test-cases/TC-2`, { result: 'retest' });
      const again = (await p.get(`/manual-runs/${run.runId}`)).body.data;
      // To retest is to be run again: neither complete nor counted as done.
      expect(again.status).toBe('in_progress');
      expect(again.progress).toMatchObject({ retest: 1, completed: 1, percentComplete: 50, passRate: 100 });
      await p.patch(`/manual-runs/${run.runId}/test-cases/TC-2`, { result: 'failed' });
      const done = (await p.get(`/manual-runs/${run.runId}`)).body.data;
      expect(done.status).toBe('completed');
      expect(done.progress).toMatchObject({ completed: 2, percentComplete: 100, passRate: 50 });
    });

    it('when a case changes after the run was created, then its run case shows the pinned revision and that it changed', async () => {
      await p.patch('/manual-test-cases/TC-1', { title: 'Open the shop' });
      const detail = (await p.get(`/manual-runs/${run.runId}`)).body.data;
      expect(detail.testCases[0]).toMatchObject({
        title: 'Open shop',
        caseRevision: 1,
        currentCaseRevision: 2,
        caseChangedSince: true,
      });
      expect(detail.testCases[1].caseChangedSince).toBe(false);
    });
  });

  describe('releases (spec §4.5)', () => {
    it('when a release is refused for its dates, then it takes no number: the next one is still MS-1', async () => {
      const p = project();
      const refused = await p.post('/releases', {
        name: 'x',
        startDate: '2026-02-01',
        dueDate: '2026-01-01',
      });
      expect(refused.status).toBe(400);
      const created = await p.post('/releases', { name: 'y' });
      expect(created.body.data.releaseId).toBe('MS-1');
    });

    it('when a release is created, then 200 (spec §4: no other status is stated) with MS-1; it reads by _id and MS-<n>; a missing one is 404', async () => {
      const p = project();
      const created = await p.post('/releases', {
        name: '2.0',
        startDate: '2026-01-01',
        dueDate: '2026-02-01',
      });
      expect(created.status).toBe(200);
      expect(created.body.data).toMatchObject({
        releaseId: 'MS-1',
        name: '2.0',
        status: 'planned',
        runCount: 0,
      });
      expect((await p.get(`/releases/${created.body.data._id}`)).body.data.releaseId).toBe('MS-1');
      expect((await p.get('/releases/ms-1')).body.data._id).toBe(created.body.data._id);
      expect((await p.get('/releases/MS-2')).status).toBe(404);
    });

    it('when runs of a release get results, then the release progress sums them', async () => {
      const { p } = await seeded();
      const release = (await p.post('/releases', { name: '3.0' })).body.data;
      const first = await runOf(p, { caseIds: ['TC-1', 'TC-2'], releaseId: release.releaseId });
      await runOf(p, { caseIds: ['TC-3'], releaseId: release._id });
      await p.patch(`/manual-runs/${first.runId}/test-cases/TC-1`, { result: 'passed' });
      await p.patch(`/manual-runs/${first.runId}/test-cases/TC-2`, { result: 'failed' });
      const detail = (await p.get('/releases/MS-1')).body.data;
      expect(detail.runCount).toBe(2);
      expect(detail.progress).toMatchObject({ total: 3, passed: 1, failed: 1, untested: 1, completed: 2 });
      expect(detail.progress.percentComplete).toBeCloseTo(66.7, 1);
    });

    it('when a release is updated, then the fields change; a due date before the start is refused', async () => {
      const p = project();
      await p.post('/releases', { name: '4.0', startDate: '2026-03-01' });
      const updated = await p.patch('/releases/MS-1', { status: 'Active', name: '4.0.0' });
      expect(updated.body.data).toMatchObject({ status: 'active', name: '4.0.0' });
      const bad = await p.patch('/releases/MS-1', { dueDate: '2026-02-01' });
      expect(bad.status).toBe(400);
      expect(bad.body.error?.message).toContain('dueDate');
      expect((await p.patch('/releases/MS-1', {})).status).toBe(400);
      expect((await p.get('/releases?status=active')).body.data).toHaveLength(1);
    });

    it('when release dates carry offsets, then they are kept in UTC and compared as instants', async () => {
      const p = project();
      const created = await p.post('/releases', {
        name: '5.0',
        startDate: '2026-11-01T10:00:00+02:00',
        dueDate: '2026-11-03T09:30:00+03:00',
      });
      expect(created.status).toBe(200);
      expect(created.body.data).toMatchObject({
        startDate: '2026-11-01T08:00:00.000Z',
        dueDate: '2026-11-03T06:30:00.000Z',
      });
      // Due at 06:30Z, before the start at 08:00Z the same day: refused, though the day is the same.
      const early = await p.post('/releases', {
        name: '5.1',
        startDate: '2026-11-01T10:00:00+02:00',
        dueDate: '2026-11-01T09:30:00+03:00',
      });
      expect(early.status).toBe(400);
      expect(early.body.error?.message).toContain('dueDate');
      // A calendar day as the due date runs to its end: due the day it starts is fine.
      const sameDay = await p.post('/releases', {
        name: '5.2',
        startDate: '2026-11-01T10:00:00Z',
        dueDate: '2026-11-01',
      });
      expect(sameDay.status).toBe(200);
      expect(sameDay.body.data.dueDate).toBe('2026-11-01');
    });
  });
});
