import { expect, projectPath, test } from './support/test';

test.describe('the run page', () => {
  test('when the run is filtered by outcome and text, then the list follows, the URL keeps the filters, and a reload shows the same', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, `/runs/${verdict.failedRunId}`));
    const list = page.getByRole('list', { name: 'Tests of the run' });
    await expect(list.getByRole('link', { name: 'tests/cart.spec.ts' })).toBeVisible();

    await page
      .locator('label')
      .filter({ hasText: /^Failed$/ })
      .click();
    await expect(page).toHaveURL(/status=failed/);
    await expect(list.getByRole('link', { name: 'tests/cart.spec.ts' })).toHaveCount(0);
    await expect(list.getByRole('link', { name: 'tests/search.spec.ts', exact: true })).toBeVisible();

    // "/" jumps to the text filter, as on Playwright's report (from anywhere but another field).
    await page.getByRole('heading', { level: 1 }).click();
    await page.keyboard.press('/');
    await expect(page.getByRole('textbox', { name: 'Filter by text' })).toBeFocused();
    await page.keyboard.type('locator.fill');
    await expect(page).toHaveURL(/q=locator\.fill/);
    await expect(list.getByRole('link', { name: /›/ })).toHaveCount(1);
    await expect(list.getByRole('link', { name: 'search › suggests while typing' })).toBeVisible();

    await page.reload();
    await expect(page.getByRole('textbox', { name: 'Filter by text' })).toHaveValue('locator.fill');
    await expect(list.getByRole('link', { name: 'search › suggests while typing' })).toBeVisible();
    await expect(list.getByRole('link', { name: 'checkout › pays with a card' })).toHaveCount(0);
  });

  test('when a spec file is expanded and folded with the keyboard, then its tests are listed and hidden, and its suite page lists them too', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, `/runs/${verdict.failedRunId}`));
    const list = page.getByRole('list', { name: 'Tests of the run' });
    const expand = list.getByRole('button', { name: 'Expand tests/cart.spec.ts' });
    await expand.focus();
    await page.keyboard.press('Enter');
    await expect(list.getByRole('button', { name: 'Collapse tests/cart.spec.ts' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
    await expect(list.getByRole('link', { name: 'cart › adds an item' }).first()).toBeVisible();
    // Enter again folds it, and the next file comes back into the (windowed) list.
    await page.keyboard.press('Enter');
    await expect(list.getByRole('link', { name: 'cart › adds an item' })).toHaveCount(0);

    await list.getByRole('link', { name: 'tests/checkout.spec.ts', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'tests/checkout.spec.ts' })).toBeVisible();
    const rows = page.getByRole('table', { name: 'Tests of tests/checkout.spec.ts' }).getByRole('row');
    await expect(rows).toHaveCount(5);
    await expect(rows.nth(1)).toContainText('failed');
  });
});
