/**
 * What the service's queries read: the schemas of its read models (one per slice, each written by its own
 * projection in the one projector of the service), and what their answers are built with. A query joins
 * another slice's table by that slice's schema, never writes it; a projection reads only its own tables.
 */
import type { Projection, SqlExecutor } from '@verdict/platform';
import { numberOfKey, type KeyPrefix } from './ids';

/** The schema of each read model. */
export interface ManualReadModels {
  users: string;
  suiteTree: string;
  caseList: string;
  caseHistory: string;
  runProgress: string;
  releaseList: string;
  sessionList: string;
  /** The linked-tests model (fed by test-results, in a projector of its own). */
  links: string;
}

/**
 * The read models' schemas: `<prefix>_<read model>`. The prefix is the schema of the single read model
 * the service had before its slices (main's `manual_testing_read`), which they replace.
 */
export function readModelSchemas(prefix: string, links: string): ManualReadModels {
  return {
    users: `${prefix}_users`,
    suiteTree: `${prefix}_suite_tree`,
    caseList: `${prefix}_case_list`,
    caseHistory: `${prefix}_case_history`,
    runProgress: `${prefix}_run_progress`,
    releaseList: `${prefix}_release_list`,
    sessionList: `${prefix}_session_list`,
    links,
  };
}

export interface ManualReadStore {
  db: SqlExecutor;
  schemas: ManualReadModels;
  /** A signed, time-limited download URL for an attachment's blob. */
  signBlobUrl(key: string): string;
  /** List totals by filter, valid while the project's case version is the one they were counted at. */
  counts?: Map<string, { version: string; total: number }>;
}

/** A slice's projection, given the schema it is named after. */
export type ReadModelOf = (name: string) => Projection;

/**
 * The internal id of the row of `table` (schema-qualified) that `ref` names in the project (its `_id` or
 * <prefix>-<n>), or null.
 */
export async function idOfRef(
  db: SqlExecutor,
  table: string,
  prefix: KeyPrefix,
  projectId: string,
  ref: string,
): Promise<string | null> {
  const number = numberOfKey(prefix, ref);
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM ${table} WHERE project_id = $1 AND ${number === null ? 'id' : 'number'} = $2`,
    [projectId, number ?? ref],
  );
  return rows[0]?.id ?? null;
}
