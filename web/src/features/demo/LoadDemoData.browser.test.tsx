import { describe, expect, test } from 'vitest';
import { sessionQuery } from '../../api/queries';
import { stubApi } from '../../testing/api';
import { renderInApp, testQueryClient } from '../../testing/render';
import { runsQuery } from '../runs/api';
import { LoadDemoData } from './LoadDemoData';

const session = (role: string) => ({ user: { id: 'u1' }, projects: [{ id: 'p1', role }] });
const RUN = { id: 'r1', counter: 1, status: 'running' };

/** The session (with `role` in p1) and an empty runs list in the cache, as the empty runs page has them. */
const cache = (role: string) =>
  testQueryClient([
    [sessionQuery().queryKey, session(role)],
    [runsQuery('p1', {}).queryKey, { data: [], pagination: { total: 0 } }],
  ]);

describe('LoadDemoData', () => {
  test('when a member clicks Load demo data, then each demo run is started, given its results and finished through the API, and the cached reads are asked again', async () => {
    const api = stubApi({
      'POST /p1/test-runs': () => RUN,
      'POST /p1/test-runs/r1/results': (request) => ({
        accepted: (request.body as { results: unknown[] }).results.length,
        duplicates: 0,
      }),
      'POST /p1/test-runs/r1/finish': () => ({ ...RUN, status: 'finished' }),
    });
    const queryClient = cache('member');
    const { screen } = await renderInApp(<LoadDemoData projectId="p1" />, { queryClient });
    await screen.getByRole('button', { name: 'Load demo data' }).click();
    await expect
      .poll(() => queryClient.getQueryState(runsQuery('p1', {}).queryKey)?.isInvalidated, { timeout: 20_000 })
      .toBe(true);
    const writes = api.writes();
    const starts = writes.filter((request) => request.path === '/p1/test-runs');
    expect(starts.length).toBeGreaterThan(60);
    expect(new Set(starts.map((request) => (request.body as { branch: string }).branch))).toEqual(
      new Set(['main', 'feature/checkout-v2', 'fix/login-timeout']),
    );
    expect(writes.filter((request) => request.path === '/p1/test-runs/r1/finish')).toHaveLength(
      starts.length,
    );
    await expect.element(screen.getByRole('alert')).not.toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'Load demo data' })).toBeEnabled();
  });

  test('when the API refuses the first run, then the reason is shown and nothing more is sent', async () => {
    const api = stubApi({});
    const { screen } = await renderInApp(<LoadDemoData projectId="p1" />, { queryClient: cache('owner') });
    await screen.getByRole('button', { name: 'Load demo data' }).click();
    await expect.element(screen.getByText('POST /p1/test-runs is not stubbed')).toBeVisible();
    expect(api.writes()).toHaveLength(1);
  });

  test('when the person is a viewer, then there is no Load demo data button', async () => {
    const { screen } = await renderInApp(<LoadDemoData projectId="p1" />, { queryClient: cache('viewer') });
    await expect.element(screen.getByRole('button', { name: 'Load demo data' })).not.toBeInTheDocument();
  });
});
