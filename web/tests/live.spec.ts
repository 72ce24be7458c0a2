import { expect, projectPath, test } from './support/test';
import { clientFor } from './support/verdict';

const result = (title: string, status: 'passed' | 'failed', message?: string) => ({
  file: 'tests/live.spec.ts',
  titlePath: ['live', title],
  project: 'chromium',
  attempt: 0,
  status,
  durationMs: 120,
  startedAt: new Date().toISOString(),
  ...(message ? { error: { message } } : {}),
});

test.describe('live runs', () => {
  test('when results arrive for a running run, then its page and the runs list show them without a reload', async ({
    page,
    verdict,
    signIn,
  }) => {
    const person = await signIn('member');
    const verdictClient = clientFor(verdict, person.token);
    const { run } = await verdictClient.startRun({ title: 'Live run', branch: 'live-branch' });
    await verdictClient.addResults(run.id, [result('opens', 'passed')]);

    await page.goto(projectPath(verdict, `/runs/${run.id}`));
    await expect(page.getByRole('heading', { name: /Live run/ })).toBeVisible();
    await expect(page.getByText('Live', { exact: true })).toBeVisible();
    const list = page.getByRole('list', { name: 'Tests of the run' });
    await expect(list.getByRole('button', { name: /^Error: the live breakage/ })).toHaveCount(0);

    await verdictClient.addResults(run.id, [result('breaks', 'failed', 'Error: the live breakage')]);
    // The page polls while the run runs: the failure appears without a reload.
    await expect(list.getByRole('button', { name: /^Error: the live breakage/ })).toBeVisible({
      timeout: 20_000,
    });

    await page.getByRole('link', { name: 'Runs', exact: true }).first().click();
    const row = page.getByRole('row', { name: /Live run/ });
    await expect(row.getByText('running', { exact: true }).first()).toBeVisible();
    await verdictClient.finishRun(run.id);
    await expect(row.getByText('failed', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  });
});
