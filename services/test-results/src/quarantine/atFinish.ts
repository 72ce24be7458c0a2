/**
 * What a finished run does to quarantines (issue 32): those whose release rule it meets are lifted (by
 * `verdict`), then the project's auto-quarantine policy quarantines its flaky tests.
 */
import { newId, ValidationError, type Clock, type CommandHandler } from '@verdict/platform';
import type { TestResultsReadStore } from '../readStore';
import { flakyCandidates } from './autoQuarantine';
import { evidenceOf, targetOf } from './evidence';
import { autoQuarantines } from './policy';
import { quarantineDecider, quarantineStream } from './quarantine';
import { quarantinePolicyOf } from './quarantineList';
import { releasedBy } from './release';

/** Who the automatic decisions are recorded as. */
export const AUTOMATIC_ACTOR = 'verdict';
const DAY_MS = 86_400_000;

export interface AtFinishDeps {
  store: TestResultsReadStore;
  commands: CommandHandler;
  clock: Clock;
}

/** @example await autoQuarantine({ store, commands, clock }, projectId, runId); */
export async function autoQuarantine(deps: AtFinishDeps, projectId: string, runId: string): Promise<void> {
  const { store, commands } = deps;
  const now = deps.clock.now();
  const metadata = { projectId, occurredAt: now };
  for (const { quarantineId, cleanRuns, branch } of await releasedBy(store, projectId, runId, now)) {
    await commands.handle(
      quarantineStream(quarantineId),
      quarantineDecider,
      {
        type: 'lift',
        reason: `released: ${cleanRuns} clean run${cleanRuns === 1 ? '' : 's'} in a row on ${branch}`,
        automatic: true,
        by: AUTOMATIC_ACTOR,
        now,
      },
      { metadata, retries: 5 },
    );
  }
  const { policy } = await quarantinePolicyOf(store.db, store.schemas.quarantines, projectId);
  if (!policy?.enabled) return;
  for (const candidate of await flakyCandidates(store, projectId, runId, now)) {
    if (!autoQuarantines(policy, candidate, now)) continue;
    const target = await targetOf(store, projectId, { testCaseId: candidate.testCaseId }, candidate.platform);
    let evidence;
    try {
      evidence = await evidenceOf(store, projectId, target, undefined, now);
    } catch (error) {
      // A flaky test whose failed attempts had no message has no signature to forgive.
      if (error instanceof ValidationError) continue;
      throw error;
    }
    const quarantineId = newId();
    const percent = Math.round((candidate.flaky / candidate.executions) * 100);
    await commands.handle(
      quarantineStream(quarantineId),
      quarantineDecider,
      {
        type: 'quarantine',
        quarantineId,
        projectId,
        target,
        reason: `auto-quarantined: flaky in ${percent}% of ${candidate.executions} executions on ${candidate.branch}`,
        ownerId: policy.ownerId,
        expiresAt: new Date(now.getTime() + policy.days * DAY_MS),
        evidence,
        releaseRule: null,
        automatic: true,
        by: AUTOMATIC_ACTOR,
        now,
      },
      { metadata },
    );
  }
}
