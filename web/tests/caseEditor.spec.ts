import { unwrap } from '@verdict/client';
import { attachWithChooser, dropTextFile, expectLoaded, viewFullSize } from './support/attachments';
import { screenshotWithoutViolations } from './support/screenshots';
import { expect, openSession, projectPath, settled, test } from './support/test';
import { clientFor, newPerson } from './support/verdict';

/** A 1×1 PNG: the evidence a tester attaches. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

test.describe('case editor', () => {
  test('when a tester writes a Classic case, then its fields and steps (reordered by drag and by keyboard) are saved, and the history shows the revision', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    const run = `${Date.now()}`;
    await page.goto(projectPath(verdict, `/cases?suite=${verdict.manual.suiteIds.checkout}`));
    await page.getByRole('button', { name: 'New case' }).click();
    await page.getByRole('dialog').getByLabel('Title').fill(`Apply a coupon ${run}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: `Apply a coupon ${run}` }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Apply a coupon ${run}` })).toBeVisible();

    await page.getByLabel('Description').fill('A returning customer pays less with a coupon.');
    await page.getByLabel('Preconditions').fill('A coupon SAVE10 exists');
    await page.getByRole('combobox', { name: 'Priority' }).click();
    await page.getByRole('option', { name: 'High' }).click();
    await page.getByRole('checkbox', { name: 'Is flaky' }).check();
    await page.getByRole('combobox', { name: 'Tags' }).fill('coupons');
    await page.getByRole('combobox', { name: 'Tags' }).press('Enter');
    await page.getByLabel('Custom fields').fill('{"browser": "Safari"}');
    for (const [index, action] of ['Open the cart', 'Enter SAVE10', 'Pay'].entries()) {
      await page.getByRole('button', { name: 'Add step', exact: true }).click();
      await page.getByLabel(`Step ${index + 1}: action`).fill(action);
      await page.getByLabel(`Step ${index + 1}: expected result`).fill(`${action}: done`);
    }
    await page.getByRole('button', { name: 'Add sub-step to step 2' }).click();
    await page.getByLabel('Step 2.1: action').fill('Check the discount line');

    // By drag: "Pay" (step 3) onto step 1's place.
    const handle = page.getByRole('button', { name: 'Move step 3', exact: true });
    const target = page.getByRole('button', { name: 'Move step 1', exact: true });
    const from = (await handle.boundingBox())!;
    const to = (await target.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y - 10, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + 2, { steps: 10 });
    await page.mouse.up();
    await expect(page.getByLabel('Step 1: action')).toHaveValue('Pay');

    // By keyboard: step 3 ("Enter SAVE10") lifted with Space, up one, dropped.
    // Each key waits for dnd-kit's announcement of the step before the next.
    await page.getByRole('button', { name: 'Move step 3', exact: true }).focus();
    await page.keyboard.press('Space');
    await expect(page.getByRole('status').filter({ hasText: 'Step 3 is over position 3.' })).toBeAttached();
    await page.keyboard.press('ArrowUp');
    await expect(page.getByRole('status').filter({ hasText: 'Step 3 is over position 2.' })).toBeAttached();
    await page.keyboard.press('Space');
    await expect(page.getByRole('status').filter({ hasText: 'dropped at position 2.' })).toBeAttached();
    await expect(page.getByLabel('Step 2: action')).toHaveValue('Enter SAVE10');
    await expect(page.getByLabel('Step 3: action')).toHaveValue('Open the cart');
    await expect(page.getByLabel('Step 2.1: action')).toHaveValue('Check the discount line');

    await expect(page.getByRole('status').filter({ hasText: 'Unsaved changes' })).toBeVisible();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Unsaved changes' })).toHaveCount(0);
    await expect(page.getByText(/· revision 2$/)).toBeVisible();

    await page.reload();
    await expect(page.getByLabel('Step 1: action')).toHaveValue('Pay');
    await expect(page.getByLabel('Step 2: action')).toHaveValue('Enter SAVE10');
    await expect(page.getByLabel('Step 2.1: action')).toHaveValue('Check the discount line');
    await expect(page.getByLabel('Step 3: action')).toHaveValue('Open the cart');
    await expect(page.getByLabel('Preconditions')).toHaveValue('A coupon SAVE10 exists');
    await expect(page.getByRole('combobox', { name: 'Priority' })).toHaveValue('High');
    await expect(page.getByRole('checkbox', { name: 'Is flaky' })).toBeChecked();
    await expect(page.getByLabel('Custom fields')).toHaveValue(/"browser": "Safari"/);
    const history = page
      .getByRole('heading', { name: 'History' })
      .locator('xpath=ancestor::div[contains(@class,"Card")]');
    await expect(history).toContainText('Revision 2');
    await expect(history).toContainText('priority');
  });

  test('when a tester writes a Gherkin case with an attachment, a comment and an issue, then all of them show after a reload', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    const run = `${Date.now()}`;
    await page.goto(projectPath(verdict, `/cases?suite=${verdict.manual.suiteIds.accounts}`));
    await page.getByRole('button', { name: 'New case' }).click();
    await page.getByRole('dialog').getByLabel('Title').fill(`Reset a password ${run}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: `Reset a password ${run}` }).click();

    await page.getByRole('radiogroup', { name: 'Step format' }).getByText('Gherkin').click();
    for (const [index, text] of [
      'Given a signed-out user',
      'When they ask for a reset link',
      'Then an email arrives',
    ].entries()) {
      await page.getByRole('button', { name: 'Add step', exact: true }).click();
      await page.getByLabel(`Step ${index + 1}: text`).fill(text);
    }
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(/· revision 2$/)).toBeVisible();

    await attachWithChooser(page, page.getByRole('button', { name: 'Attach a file' }), {
      name: 'reset-email.png',
      mimeType: 'image/png',
      buffer: PNG,
    });
    await expect(page.getByRole('img', { name: 'reset-email.png' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'reset-email.png' })).toBeVisible();

    await page.getByLabel('New comment').fill('The email takes a minute on staging.');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.getByLabel('Issue key').fill('AUTH-42');
    await page.getByRole('button', { name: 'Link issue' }).click();
    await expect(page.getByText('AUTH-42', { exact: true })).toBeVisible();

    await page.reload();
    await expect(page.getByRole('radio', { name: 'Gherkin' })).toBeChecked();
    await expect(page.getByLabel('Step 3: text')).toHaveValue('Then an email arrives');
    await expect(page.getByRole('img', { name: 'reset-email.png' })).toBeVisible();
    await expect(page.getByText('The email takes a minute on staging.', { exact: true })).toBeVisible();
    await expect(page.getByText('AUTH-42', { exact: true })).toBeVisible();
  });

  test('when a case has unsaved changes, then leaving asks first, and staying keeps them', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, `/cases/${verdict.manual.caseIds[2]}`));
    await page.getByLabel('Description').fill('Changed, not saved');
    await page
      .getByRole('navigation', { name: 'Project pages' })
      .getByRole('link', { name: 'Runs', exact: true })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Stay' }).click();
    await expect(page.getByLabel('Description')).toHaveValue('Changed, not saved');
    await expect(page).toHaveURL(/\/cases\//);

    await page
      .getByRole('navigation', { name: 'Project pages' })
      .getByRole('link', { name: 'Runs', exact: true })
      .click();
    await dialog.getByRole('button', { name: 'Leave and lose changes' }).click();
    await expect(page).toHaveURL(/\/runs$/);
  });

  test('when a case is named by an automated test, then the editor lists that test with its latest outcome and a link to its test page', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('viewer');
    await page.goto(projectPath(verdict, `/cases/${verdict.manual.caseIds[0]}`));
    const linked = page.getByRole('link', { name: /pays with a card/ });
    await expect(linked).toBeVisible();
    // The test's page in the run of its latest result, by the id test results gives it (its debug bundle's).
    await expect(linked).toHaveAttribute(
      'href',
      new RegExp(`/runs/${verdict.failedRunId}/tests/${verdict.failingCaseId}$`),
    );
    // A viewer reads the case and changes nothing.
    await expect(page.getByRole('button', { name: 'Save' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Attach a file' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Move step/ })).toHaveCount(0);
    await settled(page);

    await linked.click();
    await expect(page).toHaveURL(new RegExp(`/runs/${verdict.failedRunId}/tests/${verdict.failingCaseId}$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('checkout › pays with a card');
  });

  test('when a tester attaches files to a case, then an image shows as a preview, a removal is confirmed first and stays after a reload, and a viewer sees the files without write controls', async ({
    page,
    verdict,
    signIn,
  }, testInfo) => {
    const tester = await signIn('member');
    const testCase = unwrap(
      await clientFor(verdict, tester.token).api.POST('/{projectId}/manual-test-cases', {
        params: { path: { projectId: verdict.projectId } },
        body: { title: `Refund a cancelled order ${Date.now()}`, suiteId: verdict.manual.suiteIds.accounts },
      }),
    ).data;
    await page.goto(projectPath(verdict, `/cases/${testCase._id}`));
    const attachments = page.getByRole('region', { name: 'Attachments' });
    await expect(attachments).toContainText('No attachment.');
    // A real PNG: what the tester saw of the page.
    const screenshot = await page.screenshot({ clip: { x: 0, y: 0, width: 480, height: 300 } });

    await attachWithChooser(page, attachments.getByRole('button', { name: 'Attach a file' }), {
      name: 'refund-dialog.png',
      mimeType: 'image/png',
      buffer: screenshot,
    });
    const files = attachments.getByRole('list', { name: 'Attached files' });
    await expectLoaded(files.getByRole('img', { name: 'refund-dialog.png' }));
    // Dropped on the section, a text file comes as a download link with its size.
    await dropTextFile(page, attachments, 'refund-notes.txt', 'refund id 8812');
    await expect(files.getByRole('listitem')).toHaveCount(2);
    await expect(files.getByRole('listitem').nth(1)).toContainText('refund-notes.txt');
    await expect(files.getByRole('listitem').nth(1)).toContainText('14 B');

    await viewFullSize(page, files, 'refund-dialog.png');
    await screenshotWithoutViolations(page, testInfo, 'case-editor-attachments');

    // Cancel keeps the file; Remove deletes it.
    await files.getByRole('button', { name: 'Remove refund-dialog.png' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove attachment' });
    await expect(confirm).toContainText('refund-dialog.png');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(files.getByRole('listitem')).toHaveCount(2);
    await files.getByRole('button', { name: 'Remove refund-dialog.png' }).click();
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await expect(confirm).toHaveCount(0);
    await expect(files.getByRole('listitem')).toHaveCount(1);
    const history = page.getByRole('heading', { name: 'History' }).locator('..');
    await expect(history).toContainText('file removed');
    await expect(history).toContainText('refund-dialog.png');

    await page.reload();
    await expect(files.getByRole('link', { name: 'refund-notes.txt' })).toBeVisible();
    await expect(attachments.getByRole('img', { name: 'refund-dialog.png' })).toHaveCount(0);
    await expect(history).toContainText('file removed');

    // A viewer sees the files, and nothing to change them with.
    const viewer = await newPerson(verdict, 'viewer');
    await page.context().clearCookies();
    await openSession(page, viewer);
    await page.reload();
    await expect(attachments.getByRole('link', { name: 'refund-notes.txt' })).toBeVisible();
    await expect(attachments.getByRole('button', { name: 'Attach a file' })).toHaveCount(0);
    await expect(attachments.getByRole('button', { name: /^Remove/ })).toHaveCount(0);
    await expect(attachments).not.toContainText('drop them here');
  });
});
