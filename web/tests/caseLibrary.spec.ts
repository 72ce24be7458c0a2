import type { Locator, Page } from '@playwright/test';
import { expect, projectPath, settled, test } from './support/test';

/** A suite's link in the tree (its name, then its case count), not its actions' button. */
const suiteLink = (suites: Locator | Page, name: string) =>
  suites.getByRole('button', { name: new RegExp(`^${name} cases:`) });

test.describe('test case library', () => {
  test('when a tester builds a suite tree, then suites are created, nested, renamed, moved and deleted, and a suite holding cases is kept', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, '/cases'));
    const suites = page.getByRole('navigation', { name: 'Suites' });
    const run = `${Date.now()}`;

    await page.getByRole('button', { name: 'New suite' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill(`Search ${run}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await expect(suiteLink(suites, `Search ${run}`)).toBeVisible();

    await page.getByRole('button', { name: `Actions of suite Search ${run}` }).click();
    await page.getByRole('menuitem', { name: 'New sub-suite' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill(`Filters ${run}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    const child = suiteLink(suites, `Filters ${run}`);
    await expect(child).toBeVisible();
    // Nested: the sub-suite's row is inside its parent's list item.
    await expect(
      suites.getByRole('listitem').filter({ has: suiteLink(page, `Search ${run}`) }),
    ).toContainText(`Filters ${run}`);

    await page.getByRole('button', { name: `Actions of suite Filters ${run}` }).click();
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill(`Facets ${run}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect(suiteLink(suites, `Facets ${run}`)).toBeVisible();

    // A case in the sub-suite: created while the suite is the one shown.
    await suiteLink(suites, `Facets ${run}`).click();
    await page.getByRole('button', { name: 'New case' }).click();
    await page.getByRole('dialog').getByLabel('Title').fill(`Filter by price ${run}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await expect(page.getByRole('table', { name: 'Manual test cases' })).toContainText(
      `Filter by price ${run}`,
    );
    await expect(page.getByRole('heading', { level: 1 })).toContainText(`Facets ${run}`);

    // Moved to the top level: no longer under its parent.
    await page.getByRole('button', { name: `Actions of suite Facets ${run}` }).click();
    await page.getByRole('menuitem', { name: 'Move' }).click();
    await page.getByRole('dialog').getByRole('combobox', { name: 'Parent suite' }).click();
    await page.getByRole('option', { name: 'Top level' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(
      suites.getByRole('listitem').filter({ has: suiteLink(page, `Search ${run}`) }),
    ).not.toContainText(`Facets ${run}`);

    // A suite with a case stays, saying why; an empty one goes.
    await page.getByRole('button', { name: `Actions of suite Facets ${run}` }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('dialog').getByRole('alert')).toBeVisible();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(suiteLink(suites, `Facets ${run}`)).toBeVisible();

    await page.getByRole('button', { name: `Actions of suite Search ${run}` }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(suiteLink(suites, `Search ${run}`)).toHaveCount(0);
  });

  test('when cases are filtered and sorted, then the list and the address follow every filter of spec §4.3', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, '/cases'));
    const table = page.getByRole('table', { name: 'Manual test cases' });
    await expect(table).toContainText('Pay with a saved card');

    await page
      .getByRole('navigation', { name: 'Suites' })
      .getByRole('button', { name: /^Payments cases:/ })
      .click();
    await expect(table).toContainText('Refund an order');
    await expect(table).not.toContainText('Sign up with an email address');

    await page.getByRole('navigation', { name: 'Suites' }).getByRole('button', { name: 'All cases' }).click();
    await page.getByRole('combobox', { name: 'Priority' }).click();
    await page.getByRole('option', { name: 'High' }).click();
    await expect(page).toHaveURL(/priority=high/);
    await expect(table).toContainText('Pay with a saved card');
    await expect(table).not.toContainText('Refund an order');

    // A deep link carries every filter: the page opens filtered.
    await page.goto(
      projectPath(verdict, '/cases?automationStatus=to_be_automated&type=regression&search=refund'),
    );
    await expect(table).toContainText('Refund an order');
    await expect(table.getByRole('row')).toHaveCount(2);
    await expect(page.getByRole('combobox', { name: 'Automation' })).toHaveValue('To be automated');

    await page.goto(projectPath(verdict, '/cases?tags=accounts'));
    await expect(table).toContainText('Sign up with an email address');
    await expect(table.getByRole('row')).toHaveCount(2);

    // Sorted by title, then the other way.
    await page.goto(projectPath(verdict, `/cases?suite=${verdict.manual.suiteIds.payments}`));
    const titles = () => table.getByRole('row').locator('td:nth-child(3) > a').allTextContents();
    await page.getByRole('button', { name: 'Title' }).click();
    await expect(page).toHaveURL(/sortBy=title/);
    await expect.poll(titles).toEqual(['Pay with a saved card', 'Refund an order']);
    await page.getByRole('button', { name: 'Title' }).click();
    await expect(page).toHaveURL(/order=desc/);
    await expect.poll(titles).toEqual(['Refund an order', 'Pay with a saved card']);
    await expect(page.getByRole('columnheader', { name: 'Title' })).toHaveAttribute(
      'aria-sort',
      'descending',
    );
  });

  test('when cases are selected together, then they move to a suite, get a field and a tag at once', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    const run = `${Date.now()}`;
    await page.goto(projectPath(verdict, '/cases?suite=unassigned'));
    for (const name of ['one', 'two', 'three']) {
      await page.getByRole('button', { name: 'New case' }).click();
      await page.getByRole('dialog').getByLabel('Title').fill(`Bulk ${name} ${run}`);
      await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
      await expect(page.getByRole('dialog')).toHaveCount(0);
    }
    await page.goto(projectPath(verdict, `/cases?search=${run}`));
    const table = page.getByRole('table', { name: 'Manual test cases' });
    await expect(table.getByRole('row')).toHaveCount(4);
    const rowOf = (name: string) => table.getByRole('row').filter({ hasText: `Bulk ${name} ${run}` });
    await rowOf('one').getByRole('checkbox').check();
    await rowOf('two').getByRole('checkbox').check();
    await expect(page.getByRole('status').filter({ hasText: '2 selected' })).toBeVisible();

    await page.getByRole('combobox', { name: 'Set field' }).click();
    await page.getByRole('option', { name: 'Severity' }).click();
    await page.getByRole('combobox', { name: 'To', exact: true }).click();
    await page.getByRole('option', { name: 'Blocker' }).click();
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: 'selected' })).toHaveCount(0);
    await expect(rowOf('one').getByRole('cell').nth(4)).toHaveText('Blocker');
    await expect(rowOf('two').getByRole('cell').nth(4)).toHaveText('Blocker');
    await expect(rowOf('three').getByRole('cell').nth(4)).toHaveText('Not set');

    await page.getByRole('checkbox', { name: 'Select every case of this page' }).check();
    await page.getByRole('textbox', { name: 'Add tag' }).fill(`bulk-${run}`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(table.getByText(`bulk-${run}`)).toHaveCount(3);

    await rowOf('three').getByRole('checkbox').check();
    await page.getByRole('combobox', { name: 'Move to suite' }).click();
    await page.getByRole('option', { name: 'Accounts' }).click();
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await expect(rowOf('three')).toContainText('Accounts');
    await settled(page);
    await page.goto(
      projectPath(verdict, `/cases?suite=${verdict.manual.suiteIds.accounts}&tags=bulk-${run}`),
    );
    await expect(table.getByRole('row')).toHaveCount(2);
    await expect(table).toContainText(`Bulk three ${run}`);
  });
});
