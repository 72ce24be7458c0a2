import { expect, projectPath, test } from './support/test';

test.describe('manual runs and releases', () => {
  test("when a tester creates a release and a run of a suite in it, then the run's verdicts show in the run's and the release's progress", async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    const stamp = `${Date.now()}`;
    await page.goto(projectPath(verdict, '/releases'));
    await page.getByRole('button', { name: 'New release' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill(`Release ${stamp}`);
    await dialog.getByLabel('Due date').fill('2026-12-24');
    await dialog.getByRole('button', { name: 'Create release' }).click();
    const release = page.getByRole('article', { name: `Release Release ${stamp}` });
    await expect(release).toContainText('due');
    await expect(release).toContainText('0 runs');

    await page.getByRole('button', { name: 'New run' }).click();
    await dialog.getByLabel('Name').fill(`Payments ${stamp}`);
    await dialog.getByRole('combobox', { name: 'Suites' }).click();
    await page.getByRole('option', { name: /Payments/ }).click();
    await dialog.getByRole('combobox', { name: 'Suites' }).press('Escape');
    await dialog.getByRole('combobox', { name: 'Release' }).click();
    await page.getByRole('option', { name: `Release ${stamp}` }).click();
    await dialog.getByRole('button', { name: 'Create run' }).click();

    // Straight to the run: two cases of Payments.
    await expect(page.getByRole('heading', { level: 1, name: `Payments ${stamp}` })).toBeVisible();
    const list = page.getByRole('listbox', { name: 'Cases of the run' });
    await expect(list.getByRole('option')).toHaveCount(2);
    await expect(page.getByRole('table', { name: 'Steps and their results' })).toBeVisible();
    await page.keyboard.press('p');
    await expect(list.getByRole('option').nth(0)).toContainText('passed');
    await page.keyboard.press('f');
    await expect(list.getByRole('option').nth(1)).toContainText('failed');
    await expect(page.getByRole('status', { name: 'Run progress' })).toContainText('2 of 2 done (100%)');

    await page
      .getByRole('navigation', { name: 'Project pages' })
      .getByRole('link', { name: 'Manual runs' })
      .click();
    await expect(release).toContainText('1 run');
    await expect(release.getByLabel(`Progress of release Release ${stamp}`)).toHaveText(
      '2/2 done · 1 passed · 1 failed · 0 blocked · pass rate 50%',
    );
    await expect(release.getByRole('link', { name: `Payments ${stamp}` })).toBeVisible();
    const runs = page.getByRole('table', { name: 'Manual runs' });
    await expect(runs.getByRole('row').filter({ hasText: `Payments ${stamp}` })).toContainText(
      `Release ${stamp}`,
    );
  });

  test('when a run is created from a filter or from chosen cases, then it holds exactly those cases', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    const stamp = `${Date.now()}`;
    await page.goto(projectPath(verdict, '/releases'));
    await page.getByRole('button', { name: 'New run' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill(`Low priority ${stamp}`);
    await dialog.getByText('A filter').click();
    await dialog.getByRole('combobox', { name: 'Is' }).click();
    await page.getByRole('option', { name: 'Low' }).click();
    await dialog.getByRole('button', { name: 'Create run' }).click();
    const list = page.getByRole('listbox', { name: 'Cases of the run' });
    await expect(page.getByRole('heading', { level: 1, name: `Low priority ${stamp}` })).toBeVisible();
    await expect(list.getByRole('option')).toHaveCount(1);
    await expect(list).toContainText('Sign up with an email address');

    await page
      .getByRole('navigation', { name: 'Project pages' })
      .getByRole('link', { name: 'Manual runs' })
      .click();
    await page.getByRole('button', { name: 'New run' }).click();
    await dialog.getByLabel('Name').fill(`Chosen ${stamp}`);
    await dialog.getByText('Cases', { exact: true }).click();
    await dialog.getByRole('combobox', { name: 'Cases' }).click();
    await page.getByRole('option', { name: 'TC-2 Refund an order' }).click();
    await dialog.getByRole('combobox', { name: 'Cases' }).press('Escape');
    await dialog.getByRole('button', { name: 'Create run' }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Chosen ${stamp}` })).toBeVisible();
    await expect(list.getByRole('option')).toHaveCount(1);
    await expect(list).toContainText('Refund an order');
  });

  test('when a tester runs an exploratory session, then its charter, notes, findings and time are kept', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    const charter = `Explore refunds with expired cards ${Date.now()}`;
    await page.goto(projectPath(verdict, '/releases'));
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('dialog').getByLabel('Charter').fill(charter);
    await page.getByRole('dialog').getByLabel('Time box (minutes)').fill('45');
    await page.getByRole('dialog').getByRole('button', { name: 'Create session' }).click();
    const session = page.getByRole('article', { name: `Session: ${charter}` });
    await expect(session).toContainText('not started · time box 45 min');
    await session.getByRole('button', { name: 'Start' }).click();
    await expect(session).toContainText(/\d+ min so far · time box 45 min/);
    await session.getByLabel('Notes').fill('Expired cards are refused before the refund screen.');
    await session.getByLabel('New finding').fill('No message says why the card is refused');
    await session.getByRole('button', { name: 'Save notes and findings' }).click();
    await expect(session).toContainText('• No message says why the card is refused');
    await session.getByRole('button', { name: 'Complete' }).click();
    await expect(session).toContainText('spent');
    await page.reload();
    await expect(session.getByLabel('Notes')).toHaveValue(
      'Expired cards are refused before the refund screen.',
    );
    await expect(session).toContainText('completed');
  });
});
