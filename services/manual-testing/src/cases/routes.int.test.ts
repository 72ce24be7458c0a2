import { testDatabases } from '@verdict/platform/testing/databases';
import { OWNER, serviceUnderTest, TESTER } from '../testing';

describe.each(testDatabases())('manual test cases on $name', (database) => {
  const { project, service } = serviceUnderTest(database.open);

  async function create(p: ReturnType<typeof project>, body: Record<string, unknown> = {}) {
    const answer = await p.post('/manual-test-cases', { title: 'Log in', ...body });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  it('when an attachment is uploaded with a UTF-8 file name, then the name is kept as sent', async () => {
    const p = project();
    await create(p);
    const form = new FormData();
    form.append('file', new Blob(['bytes'], { type: 'text/plain' }), 'ünï cödé 😀 日本.txt');
    // The first case of a fresh project.
    const answer = await p.post(`/manual-test-cases/TC-1/attachments`, form);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ originalFileName: 'ünï cödé 😀 日本.txt' });
  });

  describe('create and get', () => {
    it('when a case is created, then 201 with TC-1, the defaults, and its author from the identity topic', async () => {
      const p = project();
      const created = await create(p, { description: 'The login form' });
      expect(created).toMatchObject({
        caseId: 'TC-1',
        title: 'Log in',
        description: 'The login form',
        metadata: {
          project: p.projectId,
          suite: null,
          createdBy: { _id: OWNER.userId, firstName: 'Ada', lastName: 'Lovelace', email: OWNER.email },
        },
        classification: {
          status: 'active',
          severity: 'not_set',
          priority: 'not_set',
          type: 'other',
          layer: 'not_set',
          behavior: 'not_set',
        },
        automation: { status: 'manual', toBeAutomated: false, isFlaky: false, isMuted: false },
        stepFormat: 'Classic',
        steps: { classic: [], gherkin: [] },
        tags: [],
        customFields: {},
        linkedTests: [],
        attachments: [],
        revision: 1,
      });
      expect(created.history).toHaveLength(1);
      expect(created.history[0]).toMatchObject({ kind: 'created', by: { _id: OWNER.userId } });
    });

    it('when a case is read by _id, by TC-<n> and by tc-<n>, then it is the same case', async () => {
      const p = project();
      const created = await create(p);
      const byId = await p.get(`/manual-test-cases/${created._id}`);
      const byKey = await p.get('/manual-test-cases/TC-1');
      const byLower = await p.get('/manual-test-cases/tc-1');
      expect(byId.status).toBe(200);
      expect(byKey.body.data._id).toBe(created._id);
      expect(byLower.body.data._id).toBe(created._id);
    });

    it('when a case is missing or of another project, then 404 NOT_FOUND', async () => {
      const p = project();
      const other = project();
      const created = await create(other);
      expect((await p.get('/manual-test-cases/TC-99')).body.error?.code).toBe('NOT_FOUND');
      const foreign = await p.get(`/manual-test-cases/${created._id}`);
      expect(foreign.status).toBe(404);
    });

    it('when a case is created without a title, then 400 VALIDATION_ERROR naming title; name is its alias', async () => {
      const p = project();
      const missing = await p.post('/manual-test-cases', { description: 'x' });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(missing.body.error?.message).toMatch(/title/);
      const named = await p.post('/manual-test-cases', { name: 'By name' });
      expect(named.status).toBe(201);
      expect(named.body.data.title).toBe('By name');
    });

    it('when cases are created concurrently, then no two share a TC number and none is skipped', async () => {
      const p = project();
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) => p.post('/manual-test-cases', { title: `case ${i}` })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(25).fill(201));
      const keys = answers.map((a) => a.body.data.caseId as string);
      expect(new Set(keys).size).toBe(25);
      expect(keys.map((k) => Number(k.slice(3))).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 25 }, (_, i) => i + 1),
      );
    });

    it('when the path names a project other than the authorized one, then 403 FORBIDDEN', async () => {
      const answer = await service().call('GET', '/someone-else/manual-tests', undefined, {
        projectId: 'mine',
      });
      expect(answer.status).toBe(403);
      expect(answer.body.error?.code).toBe('FORBIDDEN');
    });

    it('when a viewer writes, then 403 FORBIDDEN; a viewer reads', async () => {
      const p = project();
      await create(p);
      const write = await p.patch('/manual-test-cases/TC-1', { title: 'x' }, { role: 'viewer' });
      expect(write.status).toBe(403);
      expect((await p.get('/manual-test-cases/TC-1', { role: 'viewer' })).status).toBe(200);
    });
  });

  describe('list (spec §4.3)', () => {
    let p: ReturnType<typeof project>;
    let suiteId: string;

    beforeAll(async () => {
      p = project();
      suiteId = (await p.post('/manual-suites', { name: 'Checkout' })).body.data._id;
      await create(p, {
        title: 'Pay by card',
        description: 'Visa and Mastercard',
        status: 'active',
        severity: 'critical',
        priority: 'high',
        type: 'smoke',
        layer: 'e2e',
        behavior: 'positive',
        automationStatus: 'automated',
        tags: 'payments, smoke',
        flags: ['Is flaky'],
        suiteId,
      });
      await create(p, {
        title: 'Apply coupon',
        description: 'Discount code',
        status: 'draft',
        severity: 'minor',
        priority: 'low',
        type: 'regression',
        layer: 'api',
        behavior: 'negative',
        automationStatus: 'to_be_automated',
        tags: ['coupons'],
        flags: ['Muted'],
        suiteId,
      });
      await create(p, {
        title: 'Browse catalogue',
        description: 'Lists every product',
        status: 'deprecated',
        severity: 'blocker',
        priority: 'critical',
        type: 'functional',
        layer: 'unit',
        behavior: 'destructive',
      });
    });

    const titles = (answer: { body: { data: { title: string }[] } }) => answer.body.data.map((c) => c.title);

    it('when listed without parameters, then page 1 of up to 50 sorted by caseId, with the pagination object beside data', async () => {
      const answer = await p.get('/manual-tests');
      expect(answer.status).toBe(200);
      expect(titles(answer)).toEqual(['Pay by card', 'Apply coupon', 'Browse catalogue']);
      expect(answer.body.pagination).toEqual({
        page: 1,
        limit: 50,
        total: 3,
        hasNext: false,
        hasPrev: false,
      });
    });

    it('when paged, then limit and page cut the list and hasNext/hasPrev tell where it stands', async () => {
      const answer = await p.get('/manual-tests?limit=1&page=2');
      expect(titles(answer)).toEqual(['Apply coupon']);
      expect(answer.body.pagination).toEqual({ page: 2, limit: 1, total: 3, hasNext: true, hasPrev: true });
    });

    it.each([
      ['status=draft', ['Apply coupon']],
      ['severity=blocker', ['Browse catalogue']],
      ['priority=high', ['Pay by card']],
      ['type=regression', ['Apply coupon']],
      ['layer=unit', ['Browse catalogue']],
      ['behavior=negative', ['Apply coupon']],
      ['automationStatus=automated', ['Pay by card']],
      ['automationStatus=manual', ['Browse catalogue']],
      ['isFlaky=true', ['Pay by card']],
      ['isFlaky=false', ['Apply coupon', 'Browse catalogue']],
      ['isMuted=true', ['Apply coupon']],
      ['tags=smoke', ['Pay by card']],
      ['tags=coupons,smoke', ['Pay by card', 'Apply coupon']],
      ['tags=none', []],
      ['suiteId=null', ['Browse catalogue']],
      ['search=COUPON', ['Apply coupon']],
      ['search=mastercard', ['Pay by card']],
      ['search=TC-3', ['Browse catalogue']],
      ['search=100%25', []],
      ['status=active&priority=high', ['Pay by card']],
    ])('when filtered by %s, then only the matching cases come back', async (query, expected) => {
      const answer = await p.get(`/manual-tests?${query}`);
      expect(answer.status).toBe(200);
      expect(titles(answer)).toEqual(expected);
      expect((answer.body.pagination as { total: number }).total).toBe(expected.length);
    });

    it('when filtered by a suite id, then the cases of that suite come back', async () => {
      expect(titles(await p.get(`/manual-tests?suiteId=${suiteId}`))).toEqual([
        'Pay by card',
        'Apply coupon',
      ]);
    });

    it.each([
      ['sortBy=title', ['Apply coupon', 'Browse catalogue', 'Pay by card']],
      ['sortBy=title&sortOrder=desc', ['Pay by card', 'Browse catalogue', 'Apply coupon']],
      ['sortBy=caseId&sortOrder=desc', ['Browse catalogue', 'Apply coupon', 'Pay by card']],
      ['sortBy=classification.priority', ['Browse catalogue', 'Pay by card', 'Apply coupon']],
      ['sortBy=classification.severity', ['Browse catalogue', 'Pay by card', 'Apply coupon']],
      ['sortBy=classification.status', ['Pay by card', 'Browse catalogue', 'Apply coupon']],
      ['sortBy=createdAt&sortOrder=desc', ['Browse catalogue', 'Apply coupon', 'Pay by card']],
    ])('when sorted by %s, then the order follows', async (query, expected) => {
      expect(titles(await p.get(`/manual-tests?${query}`))).toEqual(expected);
    });

    it.each([
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1.5', 'limit'],
      ['status=open', 'status'],
      ['severity=huge', 'severity'],
      ['priority=urgent', 'priority'],
      ['type=manual', 'type'],
      ['layer=ui', 'layer'],
      ['behavior=neutral', 'behavior'],
      ['automationStatus=robot', 'automationStatus'],
      ['isFlaky=yes', 'isFlaky'],
      ['isMuted=1', 'isMuted'],
      ['sortBy=colour', 'sortBy'],
      ['sortOrder=up', 'sortOrder'],
      ['unknown=1', 'unknown'],
      ['status=active&status=draft', 'status'],
      // Integers are plain digits: what Number() would make of these is not what the client meant.
      ['limit=1e1', 'limit'],
      ['limit=0x10', 'limit'],
      ['page=1.0', 'page'],
      ['limit=%2B5', 'limit'],
    ])('when the query has %s, then 400 VALIDATION_ERROR naming %s', async (query, parameter) => {
      const answer = await p.get(`/manual-tests?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error?.message).toContain(parameter);
    });

    it('when cases change after a list was counted, then the next list counts them again', async () => {
      const fresh = project();
      const total = async (query: string) =>
        ((await fresh.get(`/manual-tests?${query}`)).body.pagination as { total: number }).total;
      expect(await total('status=draft')).toBe(0);
      await create(fresh, { status: 'draft' });
      expect(await total('status=draft')).toBe(1);
      await fresh.patch('/manual-test-cases/TC-1', { status: 'active' });
      expect([await total('status=draft'), await total('status=active')]).toEqual([0, 1]);
    });

    it('when values come in display form, then they are read as the canonical ones', async () => {
      expect(titles(await p.get('/manual-tests?automationStatus=To%20be%20automated'))).toEqual([
        'Apply coupon',
      ]);
    });
  });

  describe('PATCH (spec §4.3, §8)', () => {
    it('when only some fields are sent, then only they change and the answer is the updated case', async () => {
      const p = project();
      await create(p, { description: 'kept' });
      const answer = await p.patch('/manual-test-cases/TC-1', { title: 'Sign in', priority: 'high' });
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({
        title: 'Sign in',
        description: 'kept',
        classification: { priority: 'high' },
        revision: 2,
        metadata: { lastModifiedBy: { _id: OWNER.userId } },
      });
      expect((await p.get('/manual-test-cases/TC-1')).body.data.title).toBe('Sign in');
    });

    it('when name is sent, then it changes the title; title and name that differ are refused', async () => {
      const p = project();
      await create(p);
      expect((await p.patch('/manual-test-cases/TC-1', { name: 'Renamed' })).body.data.title).toBe('Renamed');
      const both = await p.patch('/manual-test-cases/TC-1', { name: 'A', title: 'B' });
      expect(both.status).toBe(400);
      expect(both.body.error?.message).toMatch(/name/);
    });

    it.each([
      ['an empty body', {}, 'at least one'],
      ['an unknown field', { colour: 'red' }, 'colour'],
      ['a title of 501 characters', { title: 'x'.repeat(501) }, 'title'],
      ['a name of 501 characters', { name: 'x'.repeat(501) }, 'name'],
      ['101 steps', { steps: Array.from({ length: 101 }, () => 'step') }, 'steps'],
      ['21 comments', { comments: Array.from({ length: 21 }, () => 'c') }, 'comments'],
      ['51 issues', { issues: Array.from({ length: 51 }, (_, i) => `JIRA-${i}`) }, 'issues'],
      ['an unknown status', { status: 'open' }, 'status'],
      ['an unknown severity', { severity: 'huge' }, 'severity'],
      ['an unknown flag', { flags: ['Sticky'] }, 'flags'],
      ['an unknown step format', { stepFormat: 'Cucumber' }, 'stepFormat'],
      ['a step without action', { steps: [{ expectedResult: 'ok' }] }, 'steps[0]'],
      ['tags that are not text', { tags: 5 }, 'tags'],
      ['customFields that is not an object', { customFields: [1] }, 'customFields'],
      ['a suite that does not exist', { suiteId: 'nope' }, 'suiteId'],
    ])('when the body has %s, then 400 VALIDATION_ERROR naming it', async (_what, body, named) => {
      const p = project();
      await create(p);
      const answer = await p.patch('/manual-test-cases/TC-1', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error?.message).toContain(named);
    });

    it('when customFields nest deeper than a parser can follow, then 400 VALIDATION_ERROR, not a 500', async () => {
      const p = project();
      await create(p);
      // Written as text: JSON.stringify itself cannot follow 100,000 levels.
      const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
      const answer = await p.patch('/manual-test-cases/TC-1', `{"customFields":{"x":${deep}}}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error?.message).toBe('body: nested deeper than 128 levels');
    });

    it('when customFields hold a __proto__ key, then 400 names it rather than dropping it without a word', async () => {
      const p = project();
      await create(p);
      // Written as text: an object literal's __proto__ would set the prototype, not a key.
      const answer = await p.patch(
        '/manual-test-cases/TC-1',
        '{"customFields":{"__proto__":{"polluted":1}}}',
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('__proto__'),
      });
    });

    it('when the case does not exist, then 404 NOT_FOUND', async () => {
      const answer = await project().patch('/manual-test-cases/TC-404', { title: 'x' });
      expect(answer.status).toBe(404);
      expect(answer.body.error?.code).toBe('NOT_FOUND');
    });

    it('when only stepFormat changes, then no step is converted or dropped: switching back finds them', async () => {
      const p = project();
      await create(p, { steps: ['Open the page'] });
      const gherkin = await p.patch('/manual-test-cases/TC-1', { stepFormat: 'Gherkin' });
      expect(gherkin.body.data.stepFormat).toBe('Gherkin');
      expect(gherkin.body.data.steps.classic.map((s: { action: string }) => s.action)).toEqual([
        'Open the page',
      ]);
      expect(gherkin.body.data.steps.gherkin).toEqual([]);
      const back = await p.patch('/manual-test-cases/TC-1', { stepFormat: 'Classic' });
      expect(back.body.data.steps.classic.map((s: { action: string }) => s.action)).toEqual([
        'Open the page',
      ]);
    });

    it('when steps are sent, then they replace the existing steps completely, numbered by position', async () => {
      const p = project();
      await create(p, { steps: ['Open the page', 'Type the password', 'Submit'] });
      const answer = await p.patch('/manual-test-cases/TC-1', {
        steps: [
          { action: 'Open /login', data: 'user ada', expectedResult: 'The form shows', subSteps: ['Wait'] },
        ],
      });
      expect(answer.body.data.steps).toEqual({
        classic: [
          {
            step: 1,
            action: 'Open /login',
            data: 'user ada',
            expectedResult: 'The form shows',
            subSteps: [{ step: 1, action: 'Wait', data: '', expectedResult: '', subSteps: [] }],
          },
        ],
        gherkin: [],
      });
    });

    it('when stepFormat is Gherkin, then steps fill the gherkin array and the classic one is emptied', async () => {
      const p = project();
      await create(p, { steps: ['Open the page'] });
      const answer = await p.patch('/manual-test-cases/TC-1', {
        stepFormat: 'gherkin',
        steps: ['Given a user', { text: 'When she logs in' }, 'Then she sees her name'],
      });
      expect(answer.body.data.stepFormat).toBe('Gherkin');
      expect(answer.body.data.steps.classic).toEqual([]);
      expect(
        answer.body.data.steps.gherkin.map((s: { step: number; text: string }) => [s.step, s.text]),
      ).toEqual([
        [1, 'Given a user'],
        [2, 'When she logs in'],
        [3, 'Then she sees her name'],
      ]);
    });

    it('when flags are sent, then they set toBeAutomated, isFlaky and isMuted (absent flags clear theirs)', async () => {
      const p = project();
      await create(p, { flags: ['Muted'] });
      const answer = await p.patch('/manual-test-cases/TC-1', { flags: ['To be Automated', 'is flaky'] });
      expect(answer.body.data.automation).toMatchObject({
        toBeAutomated: true,
        isFlaky: true,
        isMuted: false,
      });
    });

    it('when tags come as a comma-separated string or an array, then they are trimmed, deduplicated and replace the old ones', async () => {
      const p = project();
      await create(p, { tags: 'old' });
      const asText = await p.patch('/manual-test-cases/TC-1', { tags: ' smoke, login ,smoke,, ' });
      expect(asText.body.data.tags).toEqual(['smoke', 'login']);
      const asArray = await p.patch('/manual-test-cases/TC-1', { tags: ['regression'] });
      expect(asArray.body.data.tags).toEqual(['regression']);
    });

    it('when customFields are sent, then they merge key by key and a null removes a key', async () => {
      const p = project();
      await create(p, { customFields: { component: 'auth', owner: 'ada' } });
      const answer = await p.patch('/manual-test-cases/TC-1', {
        customFields: { owner: null, browser: 'firefox' },
      });
      expect(answer.body.data.customFields).toEqual({ component: 'auth', browser: 'firefox' });
    });

    it('when comments are sent, then each is appended with its author and time, and the content revision stays', async () => {
      const p = project();
      await create(p, { comments: ['first'] });
      const answer = await p.patch(
        '/manual-test-cases/TC-1',
        { comments: ['second', 'third'] },
        { userId: TESTER.userId },
      );
      expect(answer.body.data.revision).toBe(1);
      expect(answer.body.data.comments.map((c: { text: string }) => c.text)).toEqual([
        'first',
        'second',
        'third',
      ]);
      expect(answer.body.data.comments[2]).toMatchObject({
        author: { _id: TESTER.userId, firstName: 'Bob', lastName: 'Tester', email: TESTER.email },
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });
    });

    it('when issues are sent, then they are linked once each, whoever links them again', async () => {
      const p = project();
      await create(p, { issues: ['JIRA-1'] });
      const answer = await p.patch('/manual-test-cases/TC-1', { issues: ['JIRA-1', 'JIRA-2', 'JIRA-2'] });
      expect(answer.body.data.issues.map((i: { key: string }) => i.key)).toEqual(['JIRA-1', 'JIRA-2']);
    });

    it('when the case is changed several times, then GET returns every change, newest first, with who, when, before and after', async () => {
      const p = project();
      await create(p, { priority: 'low' });
      await p.patch('/manual-test-cases/TC-1', { priority: 'high' }, { userId: TESTER.userId });
      await p.patch('/manual-test-cases/TC-1', { priority: 'medium', title: 'Log in again' });
      const { data } = (await p.get('/manual-test-cases/TC-1')).body;
      expect(data.historyTotal).toBe(3);
      expect(data.history.map((h: { kind: string; revision: number }) => [h.kind, h.revision])).toEqual([
        ['updated', 3],
        ['updated', 2],
        ['created', 1],
      ]);
      expect(data.history[1]).toMatchObject({
        by: { _id: TESTER.userId },
        changes: { priority: { from: 'low', to: 'high' } },
      });
      expect(data.history[0].changes).toEqual({
        priority: { from: 'high', to: 'medium' },
        title: { from: 'Log in', to: 'Log in again' },
      });
      const paged = await p.get('/manual-test-cases/TC-1/history?limit=1&page=3');
      expect(paged.body.data.map((h: { kind: string }) => h.kind)).toEqual(['created']);
      expect(paged.body.pagination).toMatchObject({ total: 3, hasNext: false, hasPrev: true });
    });

    it('when a PATCH changes nothing, then no history entry and no new revision are recorded', async () => {
      const p = project();
      await create(p, { priority: 'low' });
      const answer = await p.patch('/manual-test-cases/TC-1', { priority: 'low', title: 'Log in' });
      expect(answer.status).toBe(200);
      expect(answer.body.data.revision).toBe(1);
      expect(answer.body.data.historyTotal).toBe(1);
    });

    it('when a case is moved to a suite and back to none, then metadata.suite follows', async () => {
      const p = project();
      await create(p);
      const suite = (await p.post('/manual-suites', { name: 'Auth' })).body.data;
      const moved = await p.patch('/manual-test-cases/TC-1', { suiteId: suite._id });
      expect(moved.body.data.metadata.suite).toEqual({ _id: suite._id, name: 'Auth' });
      const unassigned = await p.patch('/manual-test-cases/TC-1', { suiteId: null });
      expect(unassigned.body.data.metadata.suite).toBeNull();
    });
  });
});
