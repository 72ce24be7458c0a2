import { describe, expect, test } from 'vitest';
import type { Locator } from 'vitest/browser';
import { stubApi } from '../../testing/api';
import { pageAt, renderAtUrl } from '../../testing/render';
import { SuspectsSection } from './SuspectsSection';

/** The text of an element once it shows (part of it is what a test checks). */
async function textOf(locator: Locator): Promise<string> {
  await expect.element(locator).toBeVisible();
  return locator.element().textContent ?? '';
}

const run = (runId: string, counter: number, outcome: string, message: string) => ({
  runId,
  counter,
  outcome,
  commit: { sha: `${counter}abcdef0123456789`, message, author: 'Dana' },
  startedAt: '2026-11-28T10:00:00.000Z',
});

async function suspects(answer: unknown) {
  const api = stubApi({ 'GET /p1/test-cases/t1/suspect-commits': () => answer });
  const rendered = await renderAtUrl(
    pageAt(() => <SuspectsSection projectId="p1" caseId="t1" branch="main" />),
    '/',
  );
  return { ...rendered, api };
}

describe('SuspectsSection', () => {
  test('when the failure is new, then the last passing run, the runs between and the first failing run are listed with their commits, in order', async () => {
    const { screen, api } = await suspects({
      branch: 'main',
      newFailure: true,
      failingRuns: 1,
      lastPass: run('r1', 1, 'passed', 'Cart: totals'),
      firstFail: run('r3', 3, 'failed', 'Search: debounce input'),
      between: [run('r2', 2, 'skipped', 'Docs')],
    });
    const rows = screen.getByRole('table', { name: 'Suspect commits' }).getByRole('row');
    expect(await textOf(rows.nth(1))).toContain('last pass');
    await expect
      .element(rows.nth(1).getByRole('link', { name: '#1' }))
      .toHaveAttribute('href', '/projects/p1/runs/r1');
    expect(await textOf(rows.nth(2))).toContain('Docs');
    expect(await textOf(rows.nth(3))).toContain('first fail');
    expect(await textOf(rows.nth(3))).toContain('3abcdef0');
    expect(await textOf(rows.nth(3))).toContain('Search: debounce input');
    expect(await textOf(rows.nth(3))).toContain('Dana');
    await expect.element(screen.getByText(/^A new failure: .*1 runs between skipped the test/)).toBeVisible();
    expect(api.requests[0]!.query.get('branch')).toBe('main');
  });

  test('when the test has failed for several runs, then the section says for how many, and lists where its streak began', async () => {
    const { screen } = await suspects({
      branch: 'main',
      newFailure: false,
      failingRuns: 3,
      lastPass: run('r1', 1, 'passed', 'Cart: totals'),
      firstFail: run('r2', 2, 'failed', 'Search: debounce input'),
      between: [],
    });
    await expect.element(screen.getByText(/^Failing in the last 3 runs on main: /)).toBeVisible();
    const rows = screen.getByRole('table', { name: 'Suspect commits' }).getByRole('row');
    expect(await textOf(rows.nth(2))).toContain('first fail');
    expect(await textOf(rows.nth(2))).toContain('Search: debounce input');
  });

  test('when the latest run on its branch did not fail, then the section says so and lists no commit', async () => {
    const { screen } = await suspects({
      branch: 'main',
      newFailure: false,
      failingRuns: 0,
      lastPass: null,
      firstFail: null,
      between: [],
    });
    await expect.element(screen.getByText(/Nothing to suspect on main/)).toBeVisible();
    await expect.element(screen.getByRole('table', { name: 'Suspect commits' })).not.toBeInTheDocument();
  });
});
