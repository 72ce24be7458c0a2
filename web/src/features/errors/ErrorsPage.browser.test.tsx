import { describe, expect, test } from 'vitest';
import { userEvent, type Locator } from 'vitest/browser';
import { projectRoute, rootRoute, signedInRoute } from '../../app/routes';
import { stubApi, type ApiRequest } from '../../testing/api';
import { renderAtUrl } from '../../testing/render';
import { errorGroupRoute, errorsRoute } from './route';

// The pages under the app's own routes (its layout, its search validation), on a memory history.
const routeTree = rootRoute.addChildren([
  signedInRoute.addChildren([projectRoute.addChildren([errorsRoute, errorGroupRoute])]),
]);

/** The text of an element once it shows (part of it is what a test checks). */
async function textOf(locator: Locator): Promise<string> {
  await expect.element(locator).toBeVisible();
  return locator.element().textContent ?? '';
}

const days = (counts: number[]) =>
  counts.map((count, i) => ({ day: `2026-11-${String(20 + i).padStart(2, '0')}`, count }));

const group = (signatureId: string, signature: string, occurrences: number, branches: string[]) => ({
  signatureId,
  signature,
  message: signature,
  frame: { file: 'tests/checkout.spec.ts', function: 'pays' },
  sampleMessage: `${signature} (raw)`,
  occurrences,
  testsAffected: 2,
  runs: 3,
  branches,
  firstSeenAt: '2026-11-20T10:00:00.000Z',
  lastSeenAt: '2026-11-28T10:00:00.000Z',
  daily: days([0, 1, occurrences - 1]),
});

const GROUPS = [
  group('aaaaaaaaaaaa', 'TimeoutError: locator.fill: Timeout <duration> exceeded', 9, [
    'main',
    'feature/pay',
  ]),
  group('bbbbbbbbbbbb', 'Error: expected 200, got 500', 4, ['main']),
];

async function errorsPage(url = '/projects/p1/errors', groups: unknown[] = GROUPS) {
  const api = stubApi({
    'GET /session': () => ({
      user: { id: 'u1', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
      projects: [{ id: 'p1', name: 'Shop', role: 'member' }],
      csrfToken: 'csrf',
    }),
    'GET /p1/filters': () => ({ branches: ['main', 'feature/pay'], environments: ['staging'], projects: [] }),
    'GET /p1/errors': () => groups,
    'GET /p1/errors/aaaaaaaaaaaa': () => ({
      ...GROUPS[0],
      tests: [
        {
          testCaseId: 'tc1',
          title: 'search › suggests while typing',
          file: 'tests/search.spec.ts',
          project: 'chromium',
          occurrences: 5,
          lastSeenAt: '2026-11-28T10:00:00.000Z',
        },
      ],
      hits: [
        {
          runId: 'r9',
          counter: 9,
          branch: 'feature/pay',
          environment: 'staging',
          commit: { sha: 'abcdef0123456789', message: 'Search: debounce', author: 'Dana' },
          startedAt: '2026-11-28T10:00:00.000Z',
          occurrences: 2,
        },
      ],
    }),
  });
  const rendered = await renderAtUrl(routeTree, url);
  const lists = () => api.requests.filter((request: ApiRequest) => request.path === '/p1/errors');
  const search = () => rendered.router.state.location.search as Record<string, unknown>;
  return { ...rendered, api, lists, search };
}

describe('Errors page', () => {
  test('when it opens, then each group shows its signature, sample, counts and branches, most frequent first', async () => {
    const { screen, lists } = await errorsPage();
    const table = screen.getByRole('table', { name: 'Error groups' });
    await expect.element(table.getByRole('link', { name: /TimeoutError: locator.fill/ })).toBeVisible();
    const rows = table.getByRole('row');
    const first = rows.nth(1).getByRole('cell');
    expect(await textOf(first.nth(0))).toContain(
      'TimeoutError: locator.fill: Timeout <duration> exceeded (raw)',
    );
    expect(await textOf(first.nth(1))).toContain('9');
    expect(await textOf(first.nth(2))).toContain('2');
    expect(await textOf(first.nth(3))).toContain('3');
    expect(await textOf(first.nth(4))).toContain('main');
    await expect.element(rows.nth(1).getByLabelText('Also on feature/pay')).toBeVisible();
    expect(await textOf(rows.nth(2))).toContain('Error: expected 200, got 500');
    const query = lists().at(-1)!.query;
    expect(query.get('sortBy')).toBe('occurrences');
    expect(query.get('sortOrder')).toBe('desc');
    expect(Date.parse(query.get('end_date')!) - Date.parse(query.get('start_date')!)).toBe(30 * 86_400_000);
  });

  test('when a column header is clicked, then the list is asked in that order and the URL keeps it; again, the other way', async () => {
    const { screen, lists, search } = await errorsPage();
    await screen.getByRole('button', { name: 'Last seen' }).click();
    await expect.poll(() => lists().at(-1)!.query.get('sortBy')).toBe('lastSeen');
    expect(search()).toMatchObject({ sortBy: 'lastSeen' });
    await expect
      .element(screen.getByRole('cell', { name: 'Last seen' }))
      .toHaveAttribute('aria-sort', 'descending');
    await screen.getByRole('button', { name: 'Last seen' }).click();
    await expect.poll(() => lists().at(-1)!.query.get('sortOrder')).toBe('asc');
    expect(search()).toMatchObject({ sortBy: 'lastSeen', order: 'asc' });
  });

  test('when the page opens from a link with filters, then the controls show them and the API is asked with them', async () => {
    const { screen, lists } = await errorsPage('/projects/p1/errors?branch=main&range=7d&search=Timeout');
    await expect.element(screen.getByRole('textbox', { name: 'Search' })).toHaveValue('Timeout');
    await expect.element(screen.getByRole('combobox', { name: 'Branch' })).toHaveValue('main');
    const query = lists().at(-1)!.query;
    expect(query.get('branch')).toBe('main');
    expect(query.get('search')).toBe('Timeout');
    expect(Date.parse(query.get('end_date')!) - Date.parse(query.get('start_date')!)).toBe(7 * 86_400_000);
  });

  test('when "/" is pressed and a search typed, then the URL follows once typing pauses', async () => {
    const { screen, search } = await errorsPage();
    await expect.element(screen.getByRole('table', { name: 'Error groups' })).toBeVisible();
    await userEvent.keyboard('/');
    await expect.element(screen.getByRole('textbox', { name: 'Search' })).toHaveFocus();
    await userEvent.keyboard('500');
    await expect.poll(() => search().search).toBe('500');
  });

  test('when nothing matches the filters, then the page says so and how to see more', async () => {
    const { screen } = await errorsPage('/projects/p1/errors?branch=main', []);
    await expect.element(screen.getByText('No error matches these filters')).toBeVisible();
  });

  test('when a group is opened, then its page lists the tests and runs it hit, each a link, and keeps the filters', async () => {
    const { screen, router, api } = await errorsPage('/projects/p1/errors?range=7d');
    await screen.getByRole('link', { name: /TimeoutError: locator.fill/ }).click();
    await expect
      .element(screen.getByRole('heading', { level: 1, name: /TimeoutError: locator.fill/ }))
      .toBeVisible();
    expect(router.state.location.pathname).toBe('/projects/p1/errors/aaaaaaaaaaaa');
    expect(router.state.location.search).toMatchObject({ range: '7d' });
    const tests = screen.getByRole('table', { name: 'Tests it hit' });
    await expect
      .element(tests.getByRole('link', { name: 'search › suggests while typing' }))
      .toHaveAttribute('href', '/projects/p1/runs/r9/tests/tc1?project=chromium');
    const runs = screen.getByRole('table', { name: 'Runs it hit' });
    await expect
      .element(runs.getByRole('link', { name: '#9' }))
      .toHaveAttribute('href', '/projects/p1/runs/r9');
    expect(await textOf(runs)).toContain('abcdef01 Search: debounce');
    const detail = api.requests.find((request) => request.path === '/p1/errors/aaaaaaaaaaaa')!;
    expect(detail.query.get('start_date')).not.toBeNull();
  });
});
