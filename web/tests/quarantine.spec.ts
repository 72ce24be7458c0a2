/**
 * Quarantine and quality gates in the browser (issue 32), on runs of their own (support/fixtureQuarantine):
 * the run's gate panel and its quarantined and "would mask" failures, the quarantine page (views, owner,
 * extend, lift), the dialog that quarantines a test from its page, and the gate rules in settings. Each page
 * is checked with axe in both themes.
 */
import type { Page } from '@playwright/test';
import { seedQuarantines, type QuarantineFixture } from './support/fixtureQuarantine';
import { screenshotWithoutViolations } from './support/screenshots';
import { expect, projectPath, settled, test } from './support/test';
import { clientFor, newPerson, verdictState } from './support/verdict';

let fixture: QuarantineFixture;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const state = verdictState();
  const other = await newPerson(state, 'member', { firstName: 'Quinn', lastName: 'Owner' });
  fixture = await seedQuarantines(clientFor(state, state.demoToken), state.projectId, state.demoUserId, {
    userId: other.userId,
    name: 'Quinn Owner',
  });
});

test.afterAll(async () => {
  // Later tests' runs finish without a gate, as before.
  const state = verdictState();
  await clientFor(state, state.demoToken).setGateRules({});
});

/** The day `days` from today, as a date field takes it. */
function dayFromToday(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

const rowOf = (page: Page, title: string) =>
  page
    .getByRole('table', { name: 'Quarantined tests' })
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name: title, exact: true }) });

test.describe('the run page, its quality gate', () => {
  test('when a run fails its gate, then the panel shows each rule against its threshold and links the failure that broke it; quarantined failures say so', async ({
    page,
    verdict,
    signIn,
  }, testInfo) => {
    await signIn('member');
    await page.goto(projectPath(verdict, `/runs/${fixture.secondRunId}`));
    const gate = page.getByRole('region', { name: 'Quality gate' });
    await expect(gate.getByText('Gate failed')).toBeVisible();
    const rules = gate.getByRole('table', { name: 'Gate rules' });
    const failed = rules.getByRole('row').filter({ hasText: 'Failed tests' });
    await expect(failed).toContainText('at most 0');
    await expect(failed.getByRole('cell').nth(2)).toContainText('1');
    await expect(failed).toContainText('failed');
    await expect(failed.getByRole('link', { name: 'fails another way' })).toHaveAttribute(
      'href',
      projectPath(verdict, `/runs/${fixture.secondRunId}/tests/${fixture.caseIds.masked}?project=chromium`),
    );
    // The quarantined failure counts as passed: 6 of 7.
    const passRate = rules.getByRole('row').filter({ hasText: 'Pass rate' });
    await expect(passRate).toContainText('at least 50%');
    await expect(passRate).toContainText('85.7%');
    await expect(passRate).toContainText('passed');

    const list = page.getByRole('list', { name: 'Tests of the run' });
    const item = (title: string) =>
      list
        .getByRole('listitem')
        .filter({ has: page.getByRole('link', { name: `quarantine › ${title}`, exact: true }) });
    await expect(item('forgiven failure').getByText('quarantined', { exact: true })).toBeVisible();
    await expect(item('forgiven failure').getByText('quarantine would mask this')).toHaveCount(0);
    await expect(item('fails another way').getByText('quarantine would mask this')).toBeVisible();
    await expect(item('fails another way').getByText('new', { exact: true })).toBeVisible();
    await settled(page);
    await screenshotWithoutViolations(page, testInfo, 'run-gate');

    await failed.getByRole('link', { name: 'fails another way' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'quarantine › fails another way' }),
    ).toBeVisible();
    await expect(
      page.getByRole('region', { name: 'Error' }).getByText('quarantine would mask this'),
    ).toBeVisible();
  });

  test('when a run finished before the project had rules, then its gate says there were none', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('viewer');
    await page.goto(projectPath(verdict, `/runs/${fixture.firstRunId}`));
    const gate = page.getByRole('region', { name: 'Quality gate' });
    await expect(gate.getByText('Gate no rules')).toBeVisible();
    await expect(gate.getByText(/no gate rules when this run finished/)).toBeVisible();
  });
});

test.describe('the quarantine page', () => {
  test('when a view or an owner is picked, then the list and the URL follow; a member extends and lifts', async ({
    page,
    verdict,
    signIn,
  }, testInfo) => {
    await signIn('member');
    await page.goto(projectPath(verdict, '/quarantine'));
    await expect(
      page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Quarantine' }),
    ).toHaveAttribute('aria-current', 'page');
    const soon = rowOf(page, 'quarantine › expires soon');
    const later = rowOf(page, 'quarantine › expires later');
    await expect(soon).toContainText('Quinn Owner');
    await expect(soon).toContainText('chromium');
    await expect(soon).toContainText('Waiting on the staging certificate');
    await expect(soon.getByLabel('1 error forgiven')).toBeVisible();
    await expect(later).toBeVisible();
    await settled(page);
    await screenshotWithoutViolations(page, testInfo, 'quarantine');

    await page.getByText('Expiring soon (7 days)', { exact: true }).click();
    await expect(page).toHaveURL(/view=expiring/);
    await expect(soon).toBeVisible();
    await expect(later).toHaveCount(0);

    await page.getByText('Active', { exact: true }).click();
    await page.getByRole('combobox', { name: 'Owner' }).fill('Quinn');
    await page.getByRole('option', { name: 'Quinn Owner' }).click();
    await expect(page).toHaveURL(/owner=/);
    await expect(soon).toBeVisible();
    await expect(later).toHaveCount(0);
    await page.goto(projectPath(verdict, '/quarantine?view=expiring'));

    // Extend: a day before the current expiry is refused in the dialog; three weeks ahead is not soon.
    await soon.getByRole('button', { name: 'Extend quarantine › expires soon' }).click();
    const extend = page.getByRole('dialog', { name: /^Extend the quarantine/ });
    await extend.getByLabel('New expiry').fill(dayFromToday(2));
    await extend.getByRole('button', { name: 'Extend' }).click();
    await expect(extend.getByText('Pick a day after the current expiry')).toBeVisible();
    await extend.getByLabel('New expiry').fill(dayFromToday(21));
    await extend.getByRole('button', { name: 'Extend' }).click();
    await expect(extend).toHaveCount(0);
    await expect(soon).toHaveCount(0);

    // Lift, with a reason: it leaves the active list for the lifted one.
    await page.getByText('Active', { exact: true }).click();
    await later.getByRole('button', { name: 'Lift quarantine › expires later' }).click();
    const lift = page.getByRole('dialog', { name: /^Lift the quarantine/ });
    await lift.getByLabel('Why (optional)').fill('Fixed in #204');
    await lift.getByRole('button', { name: 'Lift quarantine' }).click();
    await expect(lift).toHaveCount(0);
    await expect(later).toHaveCount(0);
    await page.getByText('Lifted', { exact: true }).click();
    await expect(later).toContainText('Ended: Fixed in #204');
    await expect(later.getByRole('button', { name: /^Lift/ })).toHaveCount(0);

    // A test links to its page in its latest run.
    await later.getByRole('link', { name: 'quarantine › expires later' }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${fixture.secondRunId}/tests/${fixture.caseIds.later}`));
    await expect(page.getByRole('heading', { level: 1, name: 'quarantine › expires later' })).toBeVisible();
  });

  test('when a viewer opens it, then it lists without Extend or Lift; an empty view says so', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('viewer');
    await page.goto(projectPath(verdict, '/quarantine'));
    await expect(rowOf(page, 'quarantine › forgiven failure')).toBeVisible();
    await expect(page.getByRole('button', { name: /^(Extend|Lift) / })).toHaveCount(0);
    await page.goto(projectPath(verdict, `/quarantine?view=expired`));
    await expect(page.getByRole('heading', { name: 'Nothing here' })).toBeVisible();
  });
});

test.describe('quarantining a test from its page', () => {
  test('when the form is incomplete, then it says what is missing; once complete, the test shows its quarantine', async ({
    page,
    verdict,
    signIn,
  }, testInfo) => {
    await signIn('member');
    await page.goto(
      projectPath(verdict, `/runs/${fixture.firstRunId}/tests/${fixture.caseIds.fromPage}?project=chromium`),
    );
    await page.getByRole('button', { name: 'Quarantine', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Quarantine quarantine › quarantined from its page' });
    await expect(dialog.getByLabel('Expires')).toHaveValue(dayFromToday(14));
    await expect(dialog.getByRole('combobox', { name: 'Owner' })).toHaveValue('Robin Member (me)');
    const signature = dialog.getByRole('checkbox', { name: /Error: the echo check went wrong/ });
    await expect(signature).toBeChecked();
    await expect(dialog.getByText('1×')).toBeVisible();
    await expect(dialog.getByRole('checkbox', { name: 'Only on chromium' })).toBeChecked();

    await dialog.getByLabel('Expires').fill(dayFromToday(120));
    await signature.uncheck();
    await dialog.getByRole('button', { name: 'Quarantine', exact: true }).click();
    await expect(dialog.getByText('Say why the test is quarantined')).toBeVisible();
    await expect(dialog.getByText('At most 90 days from today', { exact: true }).last()).toBeVisible();
    await expect(dialog.getByText('Pick at least one error')).toBeVisible();
    await screenshotWithoutViolations(page, testInfo, 'quarantine-dialog');

    await dialog.getByLabel('Reason').fill('Echo service is down in staging; fix in #210');
    await dialog.getByLabel('Expires').fill(dayFromToday(10));
    await signature.check();
    await dialog.getByRole('button', { name: 'Quarantine', exact: true }).click();
    await expect(dialog).toHaveCount(0);
    const badge = page.getByRole('link', { name: /^Quarantined until / });
    await expect(badge).toBeVisible();
    await page.reload();
    await expect(badge).toBeVisible();
    await badge.click();
    await expect(rowOf(page, 'quarantine › quarantined from its page')).toContainText(
      'Echo service is down in staging',
    );
  });

  test('when the test is quarantined by someone else meanwhile, then the dialog shows the refusal', async ({
    page,
    verdict,
    signIn,
  }) => {
    const person = await signIn('member');
    await page.goto(
      projectPath(verdict, `/runs/${fixture.firstRunId}/tests/${fixture.caseIds.meanwhile}?project=chromium`),
    );
    await page.getByRole('button', { name: 'Quarantine', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason').fill('Quarantined twice');
    await clientFor(verdict, verdict.demoToken).quarantineTest({
      testCaseId: fixture.caseIds.meanwhile,
      project: 'chromium',
      reason: 'Quarantined first by someone else',
      ownerId: person.userId,
      expiresAt: new Date(Date.now() + 5 * 86_400_000).toISOString(),
    });
    await dialog.getByRole('button', { name: 'Quarantine', exact: true }).click();
    const alert = dialog.getByRole('alert');
    await expect(alert).toContainText('It changed meanwhile');
    await expect(alert).toContainText('quarantined already');
    await expect(dialog).toBeVisible();
  });
});

test.describe('quarantining a flaky test from the list', () => {
  test('when a flaky test is quarantined from its row, then the dialog opens on it with its errors', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, '/flaky'));
    await page.getByRole('button', { name: /^Quarantine .*pays with a card$/ }).click();
    const dialog = page.getByRole('dialog', { name: /^Quarantine .*pays with a card$/ });
    await expect(dialog.getByRole('checkbox', { name: /expect\(locator\)\.toHaveText/ })).toBeChecked();
    await expect(dialog.getByRole('checkbox', { name: /^Only on/ })).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
  });
});

test.describe('the gate rules in settings', () => {
  test('when an owner sets a rule, then it is saved and read back; a member reads the rules without editing them', async ({
    page,
    verdict,
    signIn,
  }, testInfo) => {
    await signIn('owner');
    await page.goto(projectPath(verdict, '/settings'));
    const section = page.getByRole('region', { name: 'Quality gate' });
    const rules = section.getByRole('table', { name: 'Gate rules' });
    await expect(rules.getByRole('checkbox', { name: /^Failed tests/ })).toBeChecked();
    await expect(rules.getByRole('textbox', { name: 'Pass rate threshold' })).toHaveValue('50');
    await settled(page);
    await screenshotWithoutViolations(page, testInfo, 'settings-gate');

    await rules.getByRole('checkbox', { name: /^Flaky rate/ }).check();
    await rules.getByRole('textbox', { name: 'Flaky rate threshold' }).fill('12.5');
    await rules.getByRole('checkbox', { name: /^Platforms/ }).check();
    await section.getByRole('button', { name: 'Save gate rules' }).click();
    await expect(section.getByText('Name at least one platform')).toBeVisible();
    await rules.getByLabel('Platforms threshold').fill('chromium');
    await rules.getByLabel('Platforms threshold').press('Enter');
    await section.getByRole('button', { name: 'Save gate rules' }).click();
    await expect(section.getByRole('status')).toContainText('Saved');
    const saved = await clientFor(verdict, verdict.demoToken).getGateRules();
    expect(saved.rules).toEqual({
      maxFailedTests: 0,
      noNewFailures: true,
      minPassRate: 0.5,
      maxFlakyRate: 0.125,
      requiredProjects: ['chromium'],
    });

    await signIn('member');
    await page.reload();
    await expect(section.getByRole('table', { name: 'Gate rules' })).toContainText('at most 12.5%');
    await expect(section.getByRole('button', { name: 'Save gate rules' })).toHaveCount(0);
    await expect(section.getByRole('checkbox')).toHaveCount(0);
  });
});
