import { unwrap } from '@verdict/client';
import { screenshotWithoutViolations } from './support/screenshots';
import { expect, openSession, projectPath, test } from './support/test';
import { clientFor, newPerson } from './support/verdict';

test.describe('assigning manual work to a member', () => {
  test("when a tester assigns a run's case to a colleague with the picker, then the run keeps it, and a viewer sees the assignee without a picker", async ({
    page,
    verdict,
    signIn,
  }, testInfo) => {
    const tester = await signIn('member');
    const stamp = Date.now();
    const colleague = await newPerson(verdict, 'member', { firstName: 'Grace', lastName: `Hopper ${stamp}` });
    const client = clientFor(verdict, tester.token);
    const run = unwrap(
      await client.api.POST('/{projectId}/manual-runs', {
        params: { path: { projectId: verdict.projectId } },
        body: { name: `Assigned ${stamp}`, caseIds: verdict.manual.caseIds },
      }),
    ).data;

    await page.goto(projectPath(verdict, `/manual-runs/${run._id}`));
    const picker = page.getByRole('combobox', { name: 'Assignee' });
    await expect(picker).toHaveValue('');
    await picker.click();
    await picker.fill(`Hopper ${stamp}`);
    await page.getByRole('option', { name: `Grace Hopper ${stamp}` }).click();
    await expect(picker).toHaveValue(`Grace Hopper ${stamp}`);
    await expect
      .poll(async () => {
        const detail = unwrap(
          await client.api.GET('/{projectId}/manual-runs/{runId}', {
            params: { path: { projectId: verdict.projectId, runId: run._id } },
          }),
        ).data;
        return detail.testCases[0]?.assignee?._id ?? null;
      })
      .toBe(colleague.userId);
    // The keys typed in the picker's search were not verdicts.
    await expect(
      page.getByRole('listbox', { name: 'Cases of the run' }).getByRole('option').first(),
    ).toContainText('untested');
    await page.reload();
    await expect(picker).toHaveValue(`Grace Hopper ${stamp}`);
    // The case's history says who assigned it to whom, without a verdict.
    const history = page.getByRole('heading', { name: 'Verdict history' }).locator('..');
    await expect(history).toContainText(`assigned to Grace Hopper ${stamp}`);
    await expect(history.getByText('assignee', { exact: true })).toBeVisible();
    await screenshotWithoutViolations(page, testInfo, 'manual-run-assignee');

    // "Assign to me" is one click; the picker then names the tester.
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await expect(picker).toHaveValue(/\(me\)$/);

    const viewer = await newPerson(verdict, 'viewer');
    await page.context().clearCookies();
    await openSession(page, viewer);
    await page.reload();
    await expect(page.getByText('Assignee: Robin Member')).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Assignee' })).toHaveCount(0);
  });

  test('when a run and an exploratory session are created for a colleague, then they are assigned to them, and the session is reassigned in its card', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    const stamp = Date.now();
    const colleague = await newPerson(verdict, 'member', {
      firstName: 'Barbara',
      lastName: `Liskov ${stamp}`,
    });
    const other = await newPerson(verdict, 'member', { firstName: 'Frances', lastName: `Allen ${stamp}` });
    await page.goto(projectPath(verdict, '/releases'));

    await page.getByRole('button', { name: 'New run' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill(`For Barbara ${stamp}`);
    await dialog.getByRole('combobox', { name: 'Suites' }).click();
    await page.getByRole('option', { name: /Payments/ }).click();
    await dialog.getByRole('combobox', { name: 'Suites' }).press('Escape');
    await dialog.getByRole('combobox', { name: 'Assignee' }).fill(`Liskov ${stamp}`);
    await page.getByRole('option', { name: `Barbara Liskov ${stamp}` }).click();
    await dialog.getByRole('button', { name: 'Create run' }).click();
    await expect(page).toHaveURL(/\/manual-runs\//);
    const runs = unwrap(
      await clientFor(verdict, colleague.token).api.GET('/{projectId}/manual-runs', {
        params: { path: { projectId: verdict.projectId }, query: { page: 1, limit: 100 } },
      }),
    ).data;
    expect(runs.find((r) => r.name === `For Barbara ${stamp}`)?.assignee?._id).toBe(colleague.userId);

    await page.goto(projectPath(verdict, '/releases'));
    const charter = `Explore refunds for Barbara ${stamp}`;
    await page.getByRole('button', { name: 'New session' }).click();
    await dialog.getByLabel('Charter').fill(charter);
    await dialog.getByRole('combobox', { name: 'Assignee' }).fill(`Liskov ${stamp}`);
    await page.getByRole('option', { name: `Barbara Liskov ${stamp}` }).click();
    await dialog.getByRole('button', { name: 'Create session' }).click();
    const session = page.getByRole('article', { name: `Session: ${charter}` });
    const sessionPicker = session.getByRole('combobox', { name: 'Assignee' });
    await expect(sessionPicker).toHaveValue(`Barbara Liskov ${stamp}`);

    await sessionPicker.fill(`Allen ${stamp}`);
    await page.getByRole('option', { name: `Frances Allen ${stamp}` }).click();
    await page.reload();
    await expect(sessionPicker).toHaveValue(`Frances Allen ${stamp}`);
    const sessions = unwrap(
      await clientFor(verdict, other.token).api.GET('/{projectId}/sessions', {
        params: { path: { projectId: verdict.projectId }, query: { page: 1, limit: 100 } },
      }),
    ).data;
    expect(sessions.find((s) => s.charter === charter)?.assignee?._id).toBe(other.userId);
  });
});
