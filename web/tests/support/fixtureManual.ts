/**
 * The manual-testing data every page test can count on, made through @verdict/client as a tester's
 * scripts would: a suite tree ("Checkout" › "Payments", "Accounts"), cases in it with Classic and Gherkin
 * steps, a release, and a manual run of those cases in the release.
 */
import { unwrap, type VerdictClient } from '@verdict/client';

export interface ManualFixture {
  suiteIds: { checkout: string; payments: string; accounts: string };
  caseIds: string[];
  releaseId: string;
  runId: string;
}

export async function seedManualTesting(verdict: VerdictClient, projectId: string): Promise<ManualFixture> {
  const project = { path: { projectId } };
  const suite = async (name: string, parentId: string | null = null) =>
    unwrap(
      await verdict.api.POST('/{projectId}/manual-suites', { params: project, body: { name, parentId } }),
    ).data._id;
  const checkout = await suite('Checkout');
  const payments = await suite('Payments', checkout);
  const accounts = await suite('Accounts');
  const cases = [
    {
      title: 'Pay with a saved card',
      suiteId: payments,
      priority: 'high',
      severity: 'critical',
      type: 'functional',
      tags: ['payments', 'smoke'],
      stepFormat: 'Classic',
      steps: [
        { action: 'Open the cart', expectedResult: 'The cart lists one item' },
        {
          action: 'Pay with the saved card',
          data: '4242 4242 4242 4242',
          expectedResult: 'The order is confirmed',
        },
      ],
    },
    {
      title: 'Refund an order',
      suiteId: payments,
      priority: 'medium',
      type: 'regression',
      automationStatus: 'to_be_automated',
      stepFormat: 'Gherkin',
      steps: [
        'Given a paid order',
        'When the support agent refunds it',
        'Then the customer is told by email',
      ],
    },
    {
      title: 'Sign up with an email address',
      suiteId: accounts,
      priority: 'low',
      type: 'smoke',
      tags: ['accounts'],
      steps: [{ action: 'Fill in the sign-up form', expectedResult: 'A confirmation email is sent' }],
    },
  ] as const;
  const caseIds: string[] = [];
  for (const body of cases) {
    const created = unwrap(
      await verdict.api.POST('/{projectId}/manual-test-cases', {
        params: project,
        body: { ...body, tags: [...('tags' in body ? body.tags : [])], steps: [...body.steps] },
      }),
    ).data;
    caseIds.push(created._id);
  }
  const release = unwrap(
    await verdict.api.POST('/{projectId}/releases', {
      params: project,
      body: { name: 'Release 4.2', dueDate: '2026-12-18', status: 'active' },
    }),
  ).data;
  const run = unwrap(
    await verdict.api.POST('/{projectId}/manual-runs', {
      params: project,
      body: { name: 'Regression 4.2', releaseId: release._id, suiteIds: [checkout, accounts] },
    }),
  ).data;
  unwrap(
    await verdict.api.POST('/{projectId}/sessions', {
      params: project,
      body: {
        charter: 'Explore checkout with slow networks to discover lost orders',
        status: 'in_progress',
        releaseId: release._id,
        notes: 'Throttled to 3G: the pay button stays enabled while the order is sent.',
        findings: [{ title: 'A double click pays twice', severity: 'critical', issueKey: 'PAY-90' }],
      },
    }),
  );
  return { suiteIds: { checkout, payments, accounts }, caseIds, releaseId: release._id, runId: run._id };
}
