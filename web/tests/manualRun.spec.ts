import { unwrap } from '@verdict/client';
import { expect, openSession, projectPath, test } from './support/test';
import { clientFor, newPerson } from './support/verdict';

test.describe('manual run execution', () => {
  test('when a tester records verdicts with the keyboard, one failed with a step comment and a linked issue, then the progress counts them and a second tester sees them appear', async ({
    page,
    browser,
    verdict,
    signIn,
  }) => {
    const tester = await signIn('member');
    const run = unwrap(
      await clientFor(verdict, tester.token).api.POST('/{projectId}/manual-runs', {
        params: { path: { projectId: verdict.projectId } },
        body: { name: `Smoke ${Date.now()}`, caseIds: verdict.manual.caseIds },
      }),
    ).data;

    // The second tester watches the same run in another browser context, signed in as another person.
    const colleague = await newPerson(verdict, 'member');
    const other = await browser.newContext({ baseURL: verdict.url });
    const otherPage = await other.newPage();
    await openSession(otherPage, colleague);
    await otherPage.goto(projectPath(verdict, `/manual-runs/${run._id}`));
    const theirList = otherPage.getByRole('listbox', { name: 'Cases of the run' });
    await expect(theirList.getByRole('option')).toHaveCount(3);

    await page.goto(projectPath(verdict, `/manual-runs/${run._id}`));
    const list = page.getByRole('listbox', { name: 'Cases of the run' });
    const option = (n: number) => list.getByRole('option').nth(n);
    await expect(option(0)).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('table', { name: 'Steps and their results' })).toContainText('Open the cart');
    await expect(page.getByRole('timer')).toBeVisible();

    await page.keyboard.press('p');
    await expect(option(0)).toContainText('passed');
    // On to the next case to test.
    await expect(option(1)).toHaveAttribute('aria-selected', 'true');

    await page.keyboard.press('f');
    await expect(option(1)).toContainText('failed');
    await page.keyboard.press('k');
    await expect(option(1)).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('heading', { level: 2 })).toHaveText('Refund an order');
    await page.getByRole('combobox', { name: 'Step 2 result' }).click();
    await page.getByRole('option', { name: 'failed', exact: true }).click();
    await page.getByRole('textbox', { name: 'Step 2 comment' }).fill('The refund button is greyed out');
    await page.getByLabel('Link an issue').fill('PAY-77');
    await page.getByRole('button', { name: 'Save step results, comment and issue' }).click();
    await expect(page.getByText('PAY-77', { exact: true })).toBeVisible();

    await page.keyboard.press('j');
    await expect(option(2)).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('b');
    await expect(option(2)).toContainText('blocked');

    const progress = page.getByRole('status', { name: 'Run progress' });
    await expect(progress).toContainText('3 of 3 done (100%)');
    await expect(progress).toContainText('passed 1');
    await expect(progress).toContainText('failed 1');
    await expect(progress).toContainText('blocked 1');

    // Without a reload, the other tester's page shows them.
    await expect(theirList.getByRole('option').nth(0)).toContainText('passed');
    await expect(theirList.getByRole('option').nth(1)).toContainText('failed');
    await expect(theirList.getByRole('option').nth(2)).toContainText('blocked');
    await expect(otherPage.getByRole('status', { name: 'Run progress' })).toContainText('3 of 3 done');
    await other.close();

    // Step comment and issue are kept on the server.
    const saved = unwrap(
      await clientFor(verdict, tester.token).api.GET('/{projectId}/manual-runs/{runId}', {
        params: { path: { projectId: verdict.projectId, runId: run._id } },
      }),
    ).data.testCases[1];
    expect(saved?.result).toBe('failed');
    expect(saved?.stepResults).toEqual([
      { order: 2, status: 'failed', comment: 'The refund button is greyed out' },
    ]);
    expect(saved?.linkedIssues).toEqual([{ key: 'PAY-77' }]);
    expect(saved?.elapsed).toEqual(expect.any(Number));
  });

  test('when a verdict is changed later, then the case keeps its history, and a viewer sees the run without verdict controls', async ({
    page,
    verdict,
    signIn,
  }) => {
    const tester = await signIn('member');
    const run = unwrap(
      await clientFor(verdict, tester.token).api.POST('/{projectId}/manual-runs', {
        params: { path: { projectId: verdict.projectId } },
        body: { name: `Retest ${Date.now()}`, caseIds: [verdict.manual.caseIds[2] ?? ''] },
      }),
    ).data;
    await page.goto(projectPath(verdict, `/manual-runs/${run._id}`));
    const history = page.getByRole('heading', { name: 'Verdict history' }).locator('..');
    await expect(history).toContainText('No verdict yet.');
    await page.keyboard.press('r');
    await expect(history.getByText('retest')).toBeVisible();
    await page.getByRole('button', { name: /^Passed/ }).click();
    await expect(history.getByText('passed')).toBeVisible();
    await expect(history.getByText('retest')).toBeVisible();

    const viewer = await newPerson(verdict, 'viewer');
    await page.context().clearCookies();
    await openSession(page, viewer);
    await page.reload();
    await expect(page.getByRole('listbox', { name: 'Cases of the run' }).getByRole('option')).toContainText(
      'passed',
    );
    await expect(page.getByRole('group', { name: 'Verdict' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Assign to me' })).toHaveCount(0);
    await expect(page.getByRole('combobox', { name: 'Assignee' })).toHaveCount(0);
    await page.keyboard.press('f');
    await expect(page.getByRole('listbox', { name: 'Cases of the run' }).getByRole('option')).toContainText(
      'passed',
    );
  });
});
