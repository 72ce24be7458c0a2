/**
 * A project's gate rules (issue 32), stream `gate-rules-<projectId>`: set whole by owners and admins; an
 * empty set removes the gate. The read model keeps the current set per project, which a finishing run is
 * judged by.
 */
import { GateRulesChanged, type GateRules, type GateRulesDocument } from '@verdict/contracts';
import type { Decider, Projection, SqlExecutor } from '@verdict/platform';
import type { Timestamp } from '../readStore';

export const gateRulesStream = (projectId: string): string => `gate-rules-${projectId}`;

type GateRulesEvent = ReturnType<typeof GateRulesChanged.of>;
type GateRulesState = { rules: GateRules };
type SetGateRules = { type: 'setRules'; projectId: string; rules: GateRules; by: string; now: Date };

/** The same rules in any key order are the same rules. */
const canonical = (rules: GateRules): string =>
  JSON.stringify(Object.fromEntries(Object.entries(rules).sort(([a], [b]) => (a < b ? -1 : 1))));

export const gateRulesDecider: Decider<SetGateRules, GateRulesEvent, GateRulesState> = {
  initialState: () => ({ rules: {} }),
  evolve: (_state, event) => ({ rules: event.data.rules }),
  // Setting the rules they already are records nothing: a retried PUT is not a change.
  decide: (command, state) =>
    canonical(command.rules) === canonical(state.rules)
      ? []
      : [
          GateRulesChanged.of({
            projectId: command.projectId,
            rules: command.rules,
            by: command.by,
            at: command.now.toISOString(),
          }),
        ],
  parse: (event) => GateRulesChanged.schema.parse(event),
};

/** @example createProjector({ db, projections: [gateRulesProjection('test_results_read_gates'), …], … }); */
export function gateRulesProjection(name: string): Projection {
  return {
    name,
    canHandle: ['gate.rules-changed'],
    async setup(tx, s) {
      await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.gate_rules (
        project_id text PRIMARY KEY, rules jsonb NOT NULL, updated_at timestamptz NOT NULL,
        updated_by text NOT NULL)`);
    },
    async apply(tx, events, s) {
      for (const stored of events) {
        const { projectId, rules, by, at } = GateRulesChanged.parse(stored);
        await tx.query(
          `INSERT INTO ${s}.gate_rules (project_id, rules, updated_at, updated_by) VALUES ($1, $2, $3, $4)
           ON CONFLICT (project_id) DO UPDATE SET rules = EXCLUDED.rules, updated_at = EXCLUDED.updated_at,
             updated_by = EXCLUDED.updated_by`,
          [projectId, JSON.stringify(rules), at, by],
        );
      }
    },
  };
}

/**
 * The project's gate rules; none set: `{ rules: {} }`.
 *
 * @example const { rules } = await gateRulesOf(db, schemas.gates, projectId);
 */
export async function gateRulesOf(
  db: SqlExecutor,
  schema: string,
  projectId: string,
): Promise<GateRulesDocument> {
  const { rows } = await db.query<{ rules: GateRules; updated_at: Timestamp; updated_by: string }>(
    `SELECT rules, updated_at, updated_by FROM ${schema}.gate_rules WHERE project_id = $1`,
    [projectId],
  );
  const [row] = rows;
  if (!row) return { rules: {}, updatedAt: null, updatedBy: null };
  return {
    rules: row.rules,
    updatedAt: new Date(row.updated_at).toISOString(),
    updatedBy: row.updated_by,
  };
}

/** Whether a set of rules judges anything: no rule, no gate. */
export const hasRules = (rules: GateRules): boolean =>
  Object.values(rules).some((value) => value !== undefined);
