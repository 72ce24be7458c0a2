/**
 * The auto-quarantine policy (issue 32), stream `quarantine-policy-<projectId>`: off until set. When a run
 * on the default branch finishes, each test flaky in it is quarantined by itself when it was flaky in more
 * than `minFlakyRate` of at least `minExecutions` executions on that branch in the last 30 days, is not
 * quarantined already, and no person lifted an automatic quarantine of it in the last 30 days.
 */
import {
  AUTO_QUARANTINE_MEMORY_DAYS,
  QuarantinePolicyChanged,
  type QuarantinePolicy,
} from '@verdict/contracts';
import type { Decider } from '@verdict/platform';

const DAY_MS = 86_400_000;

export const quarantinePolicyStream = (projectId: string): string => `quarantine-policy-${projectId}`;

type PolicyEvent = ReturnType<typeof QuarantinePolicyChanged.of>;
type SetPolicy = { type: 'setPolicy'; projectId: string; policy: QuarantinePolicy; by: string; now: Date };

export const quarantinePolicyDecider: Decider<SetPolicy, PolicyEvent, { policy: QuarantinePolicy | null }> = {
  initialState: () => ({ policy: null }),
  evolve: (_state, event) => ({ policy: event.data.policy }),
  // Setting the policy it already is records nothing: a retried PUT is not a change.
  decide: (command, state) =>
    state.policy !== null && JSON.stringify(state.policy) === JSON.stringify(command.policy)
      ? []
      : [
          QuarantinePolicyChanged.of({
            projectId: command.projectId,
            policy: command.policy,
            by: command.by,
            at: command.now.toISOString(),
          }),
        ],
  parse: (event) => QuarantinePolicyChanged.schema.parse(event),
};

/** What the policy is judged on, for one test (on one platform) flaky in a finished run. */
export interface PolicyFacts {
  /** Its executions on the default branch in the last 30 days (skips aside), and how many were flaky. */
  executions: number;
  flaky: number;
  /** An active quarantine covers it already. */
  quarantined: boolean;
  /** When a person last lifted an automatic quarantine of it; null: never. */
  liftedByPersonAt: Date | null;
}

/**
 * Whether the policy quarantines the test now.
 *
 * @example autoQuarantines(policy, { executions: 10, flaky: 4, quarantined: false, liftedByPersonAt: null }, now) // true for minFlakyRate 0.3
 */
export function autoQuarantines(policy: QuarantinePolicy | null, facts: PolicyFacts, now: Date): boolean {
  if (!policy?.enabled || facts.quarantined) return false;
  if (facts.executions < policy.minExecutions) return false;
  if (facts.flaky / facts.executions <= policy.minFlakyRate) return false;
  const remembered =
    facts.liftedByPersonAt !== null &&
    now.getTime() - facts.liftedByPersonAt.getTime() < AUTO_QUARANTINE_MEMORY_DAYS * DAY_MS;
  return !remembered;
}
