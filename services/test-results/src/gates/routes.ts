/**
 * The quality gate routes (issue 32): a project's rules, and a run's gate as it was judged when it
 * finished.
 */
import { gateRoutes } from '@verdict/contracts';
import { bindRoutes, type BoundRoute, type Clock, type CommandHandler } from '@verdict/platform';
import type { TestResultsReadStore } from '../readStore';
import { gateRulesDecider, gateRulesOf, gateRulesStream } from './gateRules';
import { runGate } from './runGate';

export interface GateRouteDeps {
  store: TestResultsReadStore;
  commands: CommandHandler;
  clock: Clock;
}

/**
 * The gate routes, paths relative to the service root.
 *
 * @example registerRoutes(router, createGateRoutes({ store, commands, clock }));
 */
export function createGateRoutes({ store, commands, clock }: GateRouteDeps): BoundRoute[] {
  return bindRoutes(gateRoutes, {
    'get /{projectId}/gate-rules': (_input, { projectId }) =>
      gateRulesOf(store.db, store.schemas.gates, projectId),
    'put /{projectId}/gate-rules': async ({ body }, ctx) => {
      const now = clock.now();
      await commands.handle(
        gateRulesStream(ctx.projectId),
        gateRulesDecider,
        { type: 'setRules', projectId: ctx.projectId, rules: body, by: ctx.actor, now },
        { metadata: { projectId: ctx.projectId, correlationId: ctx.correlationId, occurredAt: now } },
      );
      return gateRulesOf(store.db, store.schemas.gates, ctx.projectId);
    },
    'get /{projectId}/test-runs/{runId}/gate': ({ params }, { projectId }) =>
      runGate(store, projectId, params.runId),
  });
}
