import { describe, expect, test } from 'vitest';
import { projectRoute, rootRoute, signedInRoute } from '../../app/routes';
import { stubApi } from '../../testing/api';
import { renderAtUrl } from '../../testing/render';
import { runRoute } from './route';

// The run page under the app's own routes (its layout, its search validation), on a memory history.
const routeTree = rootRoute.addChildren([signedInRoute.addChildren([projectRoute.addChildren([runRoute])])]);

const SEARCH = 'tests/search.spec.ts';
const CART = 'tests/cart.spec.ts';
const timeout = 'TimeoutError: locator.fill: Timeout 5000ms exceeded.';
const status500 = 'Error: expected 200, got 500';

const specTest = (id: string, title: string, outcome: string, errorMessage: string | null = null) => ({
  testCaseId: id,
  title,
  titlePath: [title],
  project: null,
  outcome,
  attempts: 1,
  durationMs: 100,
  errorMessage,
});

const RUN = {
  id: 'r2',
  projectId: 'p1',
  counter: 2,
  status: 'finished',
  outcome: 'failed',
  ciRunId: null,
  title: 'Pull request',
  branch: 'feature/pay',
  environment: 'staging',
  commit: { sha: 'abcdef0123456789', message: 'Pay', author: 'Dana' },
  ci: null,
  framework: null,
  tags: [],
  startedAt: '2026-11-28T10:00:00.000Z',
  finishedAt: '2026-11-28T10:01:00.000Z',
  durationMs: 60_000,
  stats: { total: 3, passed: 1, failed: 2, flaky: 0, skipped: 0 },
  shards: null,
  specs: [
    {
      file: SEARCH,
      durationMs: 100,
      total: 1,
      passed: 0,
      failed: 1,
      flaky: 0,
      skipped: 0,
      tests: [specTest('t1', 'suggests while typing', 'failed', timeout)],
    },
    {
      file: CART,
      durationMs: 200,
      total: 2,
      passed: 1,
      failed: 1,
      flaky: 0,
      skipped: 0,
      tests: [specTest('t2', 'adds an item', 'failed', status500), specTest('t3', 'empties', 'passed')],
    },
  ],
};

const FAILURES = {
  baseBranch: 'main',
  baseRunId: 'r1',
  windowDays: 14,
  counts: { new: 1, failingOnBase: 1, knownFlaky: 0, quarantined: 0 },
  items: [
    {
      testCaseId: 't2',
      title: 'adds an item',
      titlePath: ['adds an item'],
      file: CART,
      project: null,
      verdict: 'failing-on-base',
      signature: { id: 'bbbbbbbbbbbb', text: 'Error: expected <n>, got 500 at tests/cart.spec.ts' },
      errorMessage: status500,
    },
    {
      testCaseId: 't1',
      title: 'suggests while typing',
      titlePath: ['suggests while typing'],
      file: SEARCH,
      project: null,
      verdict: 'new',
      signature: { id: 'aaaaaaaaaaaa', text: 'TimeoutError at tests/search.spec.ts' },
      errorMessage: timeout,
    },
  ],
};

const category = (items: unknown[] = []) => ({ count: items.length, items });
const compareRun = (id: string, counter: number, branch: string) => ({
  id,
  counter,
  status: 'finished',
  outcome: 'passed',
  branch,
  commit: { sha: `${counter}0000000aaaa`, message: `Commit ${counter}`, author: 'Dana' },
  startedAt: '2026-11-28T09:00:00.000Z',
});

function comparison(base: 'r1' | 'none', baseBranch: string) {
  const empty = {
    newFailures: category(),
    fixed: category(),
    stillFailing: category(),
    newlyFlaky: category(),
    added: category(),
    removed: category(),
    slower: category(),
  };
  return {
    run: compareRun('r2', 2, 'feature/pay'),
    base: base === 'none' ? null : compareRun('r1', 1, baseBranch),
    baseBranch,
    noBaseReason: base === 'none' ? `No finished run on ${baseBranch} started before this one.` : null,
    thresholds: { durationRatio: 1.5, durationFloorMs: 1000 },
    ...empty,
    ...(base === 'none'
      ? {}
      : {
          newFailures: category([
            {
              testCaseId: 't1',
              title: 'suggests while typing',
              titlePath: ['search', 'suggests while typing'],
              file: SEARCH,
              project: null,
              outcome: 'failed',
              baseOutcome: 'passed',
              durationMs: 100,
              baseDurationMs: 90,
              signature: FAILURES.items[1]!.signature,
            },
          ]),
          stillFailing: category([
            {
              testCaseId: 't2',
              title: 'adds an item',
              titlePath: ['cart', 'adds an item'],
              file: CART,
              project: null,
              outcome: 'failed',
              baseOutcome: 'failed',
              durationMs: 100,
              baseDurationMs: 100,
              signature: FAILURES.items[0]!.signature,
            },
          ]),
        }),
  };
}

async function runPage(url = '/projects/p1/runs/r2') {
  const api = stubApi({
    'GET /session': () => ({
      user: { id: 'u1', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
      projects: [{ id: 'p1', name: 'Shop', role: 'member' }],
      csrfToken: 'csrf',
    }),
    'GET /p1/filters': () => ({ branches: ['main', 'release'], environments: ['staging'], projects: [] }),
    'GET /p1/test-runs': () => [
      { ...RUN, specs: undefined },
      { ...RUN, ...compareRun('r1', 1, 'main') },
    ],
    'GET /p1/test-runs/r2': ({ query }) =>
      query.get('include') === 'failures' ? { ...RUN, specs: undefined, failures: FAILURES } : RUN,
    'GET /p1/test-runs/r2/compare': ({ query }) =>
      query.get('baseBranch') === 'release' ? comparison('none', 'release') : comparison('r1', 'main'),
  });
  const rendered = await renderAtUrl(routeTree, url);
  const list = rendered.screen.getByRole('list', { name: 'Tests of the run' });
  const search = () => rendered.router.state.location.search as Record<string, unknown>;
  return { ...rendered, api, list, search };
}

describe('Run page: verdicts', () => {
  test('when the run has failures, then each shows its verdict and its group links to its error group', async () => {
    const { list } = await runPage();
    await expect.element(list.getByText('new', { exact: true })).toBeVisible();
    await expect.element(list.getByText('failing on base', { exact: true })).toBeVisible();
    await expect
      .element(list.getByRole('link', { name: /^Error group aaaaaaaaaaaa/ }))
      .toHaveAttribute('href', '/projects/p1/errors/aaaaaaaaaaaa');
  });

  test('when a verdict is picked, then only its failures are listed and the URL keeps it', async () => {
    const { screen, list, search } = await runPage();
    await screen.getByRole('combobox', { name: 'Verdict' }).click();
    await screen.getByRole('option', { name: 'new (1)' }).click();
    await expect.poll(() => search().verdict).toBe('new');
    await expect.element(list.getByRole('link', { name: 'suggests while typing' })).toBeVisible();
    await expect.element(list.getByRole('link', { name: 'adds an item' })).not.toBeInTheDocument();
  });

  test('when the page opens with a verdict in its URL, then the filter shows it and the list follows', async () => {
    const { screen, list } = await runPage('/projects/p1/runs/r2?verdict=failing-on-base');
    await expect
      .element(screen.getByRole('combobox', { name: 'Verdict' }))
      .toHaveValue('failing on base (1)');
    await expect.element(list.getByRole('link', { name: 'adds an item' })).toBeVisible();
    await expect.element(list.getByRole('link', { name: 'suggests while typing' })).not.toBeInTheDocument();
  });
});

describe('Run page: compared with', () => {
  test('when the run has a base, then the panel names it and counts each category; a category opens to its tests', async () => {
    const { screen } = await runPage();
    const panel = screen.getByRole('region', { name: 'Compared with' });
    await expect
      .element(panel.getByRole('link', { name: 'Run #1' }))
      .toHaveAttribute('href', '/projects/p1/runs/r1');
    await expect.element(panel.getByRole('button', { name: /^New failures\s*1$/ })).toBeVisible();
    await expect.element(panel.getByRole('button', { name: /^Fixed\s*0$/ })).toBeDisabled();
    await panel.getByRole('button', { name: /^New failures\s*1$/ }).click();
    await expect
      .element(panel.getByRole('link', { name: 'search › suggests while typing' }))
      .toHaveAttribute('href', '/projects/p1/runs/r2/tests/t1');
    await expect
      .element(panel.getByRole('link', { name: /^Error group aaaaaaaaaaaa/ }))
      .toHaveAttribute('href', '/projects/p1/errors/aaaaaaaaaaaa');
  });

  test('when another branch is picked as the base, then the comparison is asked against it, the URL keeps it, and a branch without a run says so', async () => {
    const { screen, api, search } = await runPage();
    const panel = screen.getByRole('region', { name: 'Compared with' });
    await expect.element(panel.getByRole('link', { name: 'Run #1' })).toBeVisible();
    await panel.getByRole('combobox', { name: 'Compare with' }).click();
    await screen.getByRole('option', { name: 'release' }).click();
    await expect.poll(() => search().baseBranch).toBe('release');
    await expect.element(panel.getByText('No base to compare with')).toBeVisible();
    await expect
      .element(panel.getByText('No finished run on release started before this one.'))
      .toBeVisible();
    const asked = api.requests.filter((request) => request.path === '/p1/test-runs/r2/compare');
    expect(asked.at(-1)!.query.get('baseBranch')).toBe('release');
  });

  test('when a run is picked as the base, then the comparison is asked with base set to it', async () => {
    const { screen, api, search } = await runPage();
    const panel = screen.getByRole('region', { name: 'Compared with' });
    await panel.getByRole('combobox', { name: 'Compare with' }).click();
    await screen.getByRole('option', { name: /^#1 · main/ }).click();
    await expect.poll(() => search().base).toBe('r1');
    await expect
      .poll(() =>
        api.requests
          .filter((r) => r.path === '/p1/test-runs/r2/compare')
          .at(-1)!
          .query.get('base'),
      )
      .toBe('r1');
  });
});
