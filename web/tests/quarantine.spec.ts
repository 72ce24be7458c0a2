/**
 * Quarantine and quality gates in the browser (issue 32), on runs of their own (support/fixtureQuarantine):
 * the run's gate panel and its quarantined and "would mask" failures, checked with axe in both themes.
 */
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
