import type { StoredEvent } from '../eventStore/types';
import type { SqlExecutor } from '../sql/types';

/**
 * A read model to query: the database, and the schema its projection keeps its tables in (the
 * projection's name, or another one in tests). Queries take it as their first argument.
 *
 * @example const store: ReadStore = { db, schema: RUNS_READ_MODEL }; await listRuns(store, projectId, query);
 */
export interface ReadStore {
  db: SqlExecutor;
  schema: string;
}

/**
 * The project an event was recorded for. The write sides record every project-scoped event with its
 * project; a projection that meets one without has no place to put it, and says so (a dead letter).
 *
 * @example const projectId = eventProjectId(event);
 */
export function eventProjectId(event: StoredEvent): string {
  if (event.projectId === null) throw new Error(`Event ${event.eventId} (${event.type}) has no projectId`);
  return event.projectId;
}
