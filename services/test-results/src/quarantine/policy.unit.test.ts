import type { QuarantinePolicy } from '@verdict/contracts';
import { autoQuarantines, quarantinePolicyDecider, type PolicyFacts } from './policy';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const DAY = 86_400_000;
const policy: QuarantinePolicy = {
  enabled: true,
  minFlakyRate: 0.3,
  minExecutions: 5,
  days: 14,
  ownerId: 'ada',
};
const facts = (overrides: Partial<PolicyFacts> = {}): PolicyFacts => ({
  executions: 10,
  flaky: 4,
  quarantined: false,
  liftedByPersonAt: null,
  ...overrides,
});

describe('the auto-quarantine policy', () => {
  it('when a test is flaky in more than the threshold across enough executions, then it is quarantined', () => {
    expect(autoQuarantines(policy, facts(), NOW)).toBe(true);
  });

  it('when the rate is at the threshold or below, or the executions are too few, then it is not', () => {
    expect(autoQuarantines(policy, facts({ flaky: 3 }), NOW)).toBe(false);
    expect(autoQuarantines(policy, facts({ executions: 4, flaky: 4 }), NOW)).toBe(false);
  });

  it('when the policy is off or never set, or the test is quarantined already, then it is not', () => {
    expect(autoQuarantines({ ...policy, enabled: false }, facts(), NOW)).toBe(false);
    expect(autoQuarantines(null, facts(), NOW)).toBe(false);
    expect(autoQuarantines(policy, facts({ quarantined: true }), NOW)).toBe(false);
  });

  it('when a person lifted its automatic quarantine within 30 days, then it is left alone; after, it is quarantined again', () => {
    expect(
      autoQuarantines(policy, facts({ liftedByPersonAt: new Date(NOW.getTime() - 29 * DAY) }), NOW),
    ).toBe(false);
    expect(
      autoQuarantines(policy, facts({ liftedByPersonAt: new Date(NOW.getTime() - 31 * DAY) }), NOW),
    ).toBe(true);
  });
});

describe('the policy decider', () => {
  const set = (next: QuarantinePolicy) => ({
    type: 'setPolicy' as const,
    projectId: 'p',
    policy: next,
    by: 'u',
    now: NOW,
  });

  it('given no policy, when one is set, then quarantine.policy-changed records it', () => {
    const events = quarantinePolicyDecider.decide(set(policy), quarantinePolicyDecider.initialState());
    expect(events).toEqual([
      {
        type: 'quarantine.policy-changed',
        version: 1,
        data: { projectId: 'p', policy, by: 'u', at: NOW.toISOString() },
      },
    ]);
  });

  it('given a policy, when the same is set again, then nothing is recorded; another, then it is', () => {
    const state = { policy };
    expect(quarantinePolicyDecider.decide(set(policy), state)).toEqual([]);
    expect(quarantinePolicyDecider.decide(set({ ...policy, days: 7 }), state)).toHaveLength(1);
  });
});
