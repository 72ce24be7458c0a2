/**
 * A case's change history: one row per event of the case (created, updated or commented, attachment
 * added or removed), keyed by the event's stream position, so applying an event again adds nothing.
 */
import { keptInstant, type CaseChange, type ManualTestingEvent } from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import { manualEvents } from '../shared/manualEvents';
import type { ManualReadStore } from '../shared/readStore';
import { userOf, usersByIds } from '../users/userDirectory';

interface Entry {
  caseId: string;
  position: number;
  kind: CaseChange['kind'];
  /** The case's revision after the change; null: the one of its last entry (an attachment's change). */
  revision: number | null;
  at: string;
  by: string;
  changes: CaseChange['changes'];
  comments: { text: string }[];
  issues: string[];
}

async function setup(tx: SqlExecutor, s: string) {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.case_history (
    case_id text NOT NULL, position integer NOT NULL, kind text NOT NULL, revision integer NOT NULL,
    at timestamptz NOT NULL, by_user text NOT NULL, changes jsonb NOT NULL, comments jsonb NOT NULL,
    issues jsonb NOT NULL, PRIMARY KEY (case_id, position))`);
}

async function record(tx: SqlExecutor, s: string, entry: Entry) {
  await tx.query(
    `INSERT INTO ${s}.case_history (case_id, position, kind, revision, at, by_user, changes, comments, issues)
     SELECT $1, $2, $3, coalesce($4, (SELECT max(revision) FROM ${s}.case_history WHERE case_id = $1), 1),
       $5, $6, $7::text::jsonb, $8::text::jsonb, $9::text::jsonb
     ON CONFLICT (case_id, position) DO NOTHING`,
    [
      entry.caseId,
      entry.position,
      entry.kind,
      entry.revision,
      entry.at,
      entry.by,
      JSON.stringify(entry.changes),
      JSON.stringify(entry.comments.map((c) => c.text)),
      JSON.stringify(entry.issues),
    ],
  );
}

/** The history entry of a case event at `position` in its stream; null for an event of no case. */
function entryOf(position: number, event: ManualTestingEvent): Entry | null {
  switch (event.type) {
    case 'manual-case.created': {
      const { caseId, at, by, comments, issues } = event.data;
      return { caseId, position, kind: 'created', revision: 1, at, by, changes: {}, comments, issues };
    }
    case 'manual-case.revised': {
      const d = event.data;
      const changes: CaseChange['changes'] = {};
      for (const [field, to] of Object.entries(d.set)) {
        changes[field] = { from: (d.previous as Record<string, unknown>)[field] ?? null, to };
      }
      const kind = Object.keys(changes).length > 0 ? 'updated' : 'commented';
      return { ...d, position, kind, changes, issues: d.issuesLinked };
    }
    case 'manual-case.attachment-added': {
      const d = event.data;
      const changes = { attachments: { from: null, to: d.attachment.originalFileName } };
      return { ...d, position, kind: 'attachment-added', revision: null, changes, comments: [], issues: [] };
    }
    case 'manual-case.attachment-removed': {
      const d = event.data;
      const changes = { attachments: { from: d.attachment.originalFileName, to: null } };
      return {
        ...d,
        position,
        kind: 'attachment-removed',
        revision: null,
        changes,
        comments: [],
        issues: [],
      };
    }
    default:
      return null;
  }
}

/** @example createProjector({ db, projections: [caseHistoryProjection('manual_testing_read_case_history'), …], … }); */
export function caseHistoryProjection(name: string): Projection {
  return {
    name,
    // 2: entries of removed attachments.
    version: 2,
    canHandle: [
      'manual-case.created',
      'manual-case.revised',
      'manual-case.attachment-added',
      'manual-case.attachment-removed',
    ],
    setup,
    async apply(tx, events, s) {
      for (const { envelope, event } of manualEvents(events)) {
        const entry = entryOf(envelope.streamPosition, event);
        if (entry) await record(tx, s, entry);
      }
    },
  };
}

interface HistoryRow {
  kind: CaseChange['kind'];
  revision: number;
  at: Date;
  by_user: string;
  changes: CaseChange['changes'];
  comments: string[];
  issues: string[];
}

/** One page of a case's change history, newest first, with the number of entries in all. */
export async function caseHistory(store: ManualReadStore, caseId: string, page: number, limit: number) {
  const s = store.schemas.caseHistory;
  const [{ rows }, counted] = await Promise.all([
    store.db.query<HistoryRow>(
      `SELECT kind, revision, at, by_user, changes, comments, issues FROM ${s}.case_history
       WHERE case_id = $1 ORDER BY position DESC LIMIT $2 OFFSET $3`,
      [caseId, limit, (page - 1) * limit],
    ),
    store.db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM ${s}.case_history WHERE case_id = $1`,
      [caseId],
    ),
  ]);
  const users = await usersByIds(
    store,
    rows.map((r) => r.by_user),
  );
  const items: CaseChange[] = rows.map((r) => ({
    revision: r.revision,
    kind: r.kind,
    at: keptInstant(r.at),
    by: userOf(users, r.by_user),
    changes: r.changes,
    comments: r.comments,
    issuesLinked: r.issues,
  }));
  return { items, total: counted.rows[0]?.total ?? 0 };
}
