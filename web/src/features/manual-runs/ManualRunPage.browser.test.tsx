import { describe, expect, test } from 'vitest';
import { userEvent } from 'vitest/browser';
import { projectRoute, rootRoute, signedInRoute } from '../../app/routes';
import { stubApi } from '../../testing/api';
import { renderAtUrl } from '../../testing/render';
import { manualRunRoute } from './route';

// The page under the app's own routes (its layout, its search validation), on a memory history.
const routeTree = rootRoute.addChildren([
  signedInRoute.addChildren([projectRoute.addChildren([manualRunRoute])]),
]);

type Result = 'untested' | 'passed' | 'failed' | 'blocked' | 'skipped' | 'retest';

const runCase = (n: number, title: string, result: Result = 'untested') => ({
  _id: `rc${n}`,
  caseRef: { _id: `c${n}`, caseId: `TC-${n}` },
  title,
  result,
  stepResults: [],
  comment: null,
  linkedIssues: [],
  assignee: null,
  caseChangedSince: false,
  history: [],
  attachments: [],
});

/**
 * A run of three cases behind a stand-in API that records verdicts as the server does, opened at `url`
 * by a person of `role`.
 */
async function executionPage({
  role = 'member',
  results = ['untested', 'untested', 'untested'] as Result[],
  url = '/projects/p1/manual-runs/r1',
} = {}) {
  const cases = ['Sign in', 'Add to cart', 'Pay by card'].map((title, i) =>
    runCase(i + 1, title, results[i]),
  );
  const run = () => ({
    _id: 'r1',
    runId: 'MR-1',
    name: 'Release 2.0 regression',
    status: 'in_progress',
    release: null,
    progress: {
      total: 3,
      completed: cases.filter((c) => c.result !== 'untested').length,
      percentComplete: 0,
      passed: 0,
      failed: 0,
      blocked: 0,
      skipped: 0,
      retest: 0,
      untested: 3,
      passRate: 0,
    },
    testCases: cases,
  });
  const api = stubApi({
    'GET /session': () => ({
      user: { id: 'u1', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
      projects: [{ id: 'p1', name: 'Shop', role }],
      csrfToken: 'csrf',
    }),
    'GET /p1/members': () => [],
    'GET /p1/manual-runs/r1': run,
    ...Object.fromEntries(
      cases.map((c) => [
        `GET /p1/manual-test-cases/${c.caseRef._id}`,
        () => ({
          _id: c.caseRef._id,
          caseId: c.caseRef.caseId,
          title: c.title,
          stepFormat: 'Classic',
          steps: { classic: [], gherkin: [] },
          preconditions: '',
        }),
      ]),
    ),
    ...Object.fromEntries(
      cases.map((c) => [
        `PATCH /p1/manual-runs/r1/test-cases/${c._id}`,
        ({ body }) => {
          c.result = (body as { result: Result }).result;
          return c;
        },
      ]),
    ),
  });
  const rendered = await renderAtUrl(routeTree, url);
  const { screen, router } = rendered;
  await expect.element(screen.getByRole('heading', { name: 'Release 2.0 regression' })).toBeVisible();
  const current = () => screen.getByRole('option', { selected: true });
  const caseInUrl = () => (router.state.location.search as { case?: string }).case;
  const verdicts = () => api.writes().map((write) => (write.body as { result: Result }).result);
  return { ...rendered, api, current, caseInUrl, verdicts };
}

describe('Manual run execution: moving through the cases from the keyboard', () => {
  test('when the run opens, then its first case is the current one', async () => {
    const { current, screen } = await executionPage();
    await expect.element(current()).toMatchTextContent('Sign in');
    await expect.element(screen.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  });

  test('when the user presses J, then the next case is current and the URL names it; K goes back', async () => {
    const { current, caseInUrl, screen } = await executionPage();
    await userEvent.keyboard('j');
    await expect.element(current()).toMatchTextContent('Add to cart');
    await expect.element(screen.getByRole('heading', { name: 'Add to cart' })).toBeVisible();
    expect(caseInUrl()).toBe('rc2');
    await userEvent.keyboard('k');
    await expect.element(current()).toMatchTextContent('Sign in');
    expect(caseInUrl()).toBe('rc1');
  });

  test('when the user presses ↓ and ↑, then they move as J and K do', async () => {
    const { current } = await executionPage();
    await userEvent.keyboard('{ArrowDown}{ArrowDown}');
    await expect.element(current()).toMatchTextContent('Pay by card');
    await userEvent.keyboard('{ArrowUp}');
    await expect.element(current()).toMatchTextContent('Add to cart');
  });

  test('when the user presses J on the last case or K on the first, then the current case stays', async () => {
    const { current } = await executionPage({ url: '/projects/p1/manual-runs/r1?case=rc3' });
    await expect.element(current()).toMatchTextContent('Pay by card');
    await userEvent.keyboard('j');
    await expect.element(current()).toMatchTextContent('Pay by card');
    await userEvent.keyboard('kkk');
    await expect.element(current()).toMatchTextContent('Sign in');
  });
});

describe('Manual run execution: verdict keys', () => {
  test('when the user presses P, then passed is recorded for the current case with the time it was open, and the next case is current', async () => {
    const { api, current, screen } = await executionPage();
    await userEvent.keyboard('p');
    await expect.element(current()).toMatchTextContent('Add to cart');
    await expect.poll(api.writes).toHaveLength(1);
    const [write] = api.writes();
    expect(write?.path).toBe('/p1/manual-runs/r1/test-cases/rc1');
    expect(write?.body).toEqual({ result: 'passed', elapsed: expect.any(Number) });
    await expect.element(screen.getByRole('option', { name: /Sign in/ })).toMatchTextContent('passed');
  });

  test('when the user presses F, B, S and R, then failed, blocked, skipped and retest are recorded in turn', async () => {
    const { verdicts, current } = await executionPage();
    await userEvent.keyboard('f');
    await expect.element(current()).toMatchTextContent('Add to cart');
    await userEvent.keyboard('b');
    await expect.element(current()).toMatchTextContent('Pay by card');
    await userEvent.keyboard('s');
    await expect.poll(verdicts).toEqual(['failed', 'blocked', 'skipped']);
    // The last case stays current: R marks it for a retest.
    await expect.element(current()).toMatchTextContent('Pay by card');
    await userEvent.keyboard('r');
    await expect.poll(verdicts).toEqual(['failed', 'blocked', 'skipped', 'retest']);
  });

  test('when a verdict is given, then the next case still to test is current, past those already done', async () => {
    const { current } = await executionPage({ results: ['untested', 'passed', 'untested'] });
    await userEvent.keyboard('p');
    await expect.element(current()).toMatchTextContent('Pay by card');
  });

  test('when the user types in a field, then the letters are text, not verdicts', async () => {
    const { api, screen } = await executionPage();
    await screen.getByRole('textbox', { name: 'Comment on the result' }).click();
    await userEvent.keyboard('pfbsr jk');
    await expect
      .element(screen.getByRole('textbox', { name: 'Comment on the result' }))
      .toHaveValue('pfbsr jk');
    expect(api.writes()).toEqual([]);
  });

  test('when a viewer presses a verdict key, then nothing is recorded, but J and K still move', async () => {
    const { api, current, screen } = await executionPage({ role: 'viewer' });
    await expect.element(screen.getByRole('group', { name: 'Verdict' })).not.toBeInTheDocument();
    await userEvent.keyboard('p');
    await userEvent.keyboard('j');
    await expect.element(current()).toMatchTextContent('Add to cart');
    expect(api.writes()).toEqual([]);
  });
});
