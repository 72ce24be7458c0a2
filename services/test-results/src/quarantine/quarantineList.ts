/**
 * The quarantines of a project (issue 32): one row per quarantine with its target, owner, expiry, the
 * signatures it forgives and how it ended. Serves the quarantine list, the verdicts (which failures are
 * forgiven) and the reporters' quarantine fetch. Whether a quarantine is active is read against the clock
 * (`status = 'active' AND expires_at > now`), so a quarantine stops forgiving at its expiry even before the
 * sweep records it as expired.
 */
import { parseQuarantineEvent, type QuarantineEvent } from '@verdict/contracts';
import type { Projection, SqlExecutor, StoredEvent } from '@verdict/platform';
import type { Timestamp } from '../readStore';

async function setup(tx: SqlExecutor, s: string): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.quarantines (
    quarantine_id text PRIMARY KEY, project_id text NOT NULL, test_case_id text NOT NULL, file text NOT NULL,
    title_path text[] NOT NULL, platform text, reason text NOT NULL, owner_id text NOT NULL,
    expires_at timestamptz NOT NULL, status text NOT NULL, automatic boolean NOT NULL,
    release_clean_runs integer, evidence jsonb NOT NULL, signature_ids text[] NOT NULL,
    created_by text NOT NULL, created_at timestamptz NOT NULL,
    ended_at timestamptz, ended_by text, end_reason text)`);
  // The verdicts and the reporters ask for a project's active quarantines of some tests.
  await tx.query(
    `CREATE INDEX IF NOT EXISTS quarantines_test ON ${s}.quarantines (project_id, test_case_id, status)`,
  );
}

async function applyOne(tx: SqlExecutor, s: string, event: QuarantineEvent): Promise<void> {
  switch (event.type) {
    case 'test.quarantined': {
      const d = event.data;
      // A redelivery finds the row there and changes nothing.
      await tx.query(
        `INSERT INTO ${s}.quarantines (quarantine_id, project_id, test_case_id, file, title_path, platform,
           reason, owner_id, expires_at, status, automatic, release_clean_runs, evidence, signature_ids,
           created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', $10, $11, $12, $13, $14, $15)
         ON CONFLICT (quarantine_id) DO NOTHING`,
        [
          d.quarantineId,
          d.projectId,
          d.target.testCaseId,
          d.target.file,
          d.target.titlePath,
          d.target.project,
          d.reason,
          d.ownerId,
          d.expiresAt,
          d.automatic,
          d.releaseRule?.cleanRuns ?? null,
          JSON.stringify(d.evidence),
          d.evidence.signatures.map((signature) => signature.id),
          d.by,
          d.at,
        ],
      );
      return;
    }
    case 'test.quarantine-extended':
      await tx.query(`UPDATE ${s}.quarantines SET expires_at = $2 WHERE quarantine_id = $1`, [
        event.data.quarantineId,
        event.data.expiresAt,
      ]);
      return;
    case 'test.quarantine-signatures-changed':
      await tx.query(
        `UPDATE ${s}.quarantines SET signature_ids = $2,
           evidence = jsonb_set(evidence, '{signatures}', $3::jsonb)
         WHERE quarantine_id = $1`,
        [
          event.data.quarantineId,
          event.data.signatures.map((signature) => signature.id),
          JSON.stringify(event.data.signatures),
        ],
      );
      return;
    case 'test.quarantine-lifted':
      await tx.query(
        `UPDATE ${s}.quarantines SET status = 'lifted', ended_at = $2, ended_by = $3, end_reason = $4
         WHERE quarantine_id = $1`,
        [event.data.quarantineId, event.data.at, event.data.by, event.data.reason],
      );
      return;
    case 'test.quarantine-expired':
      await tx.query(
        `UPDATE ${s}.quarantines SET status = 'expired', ended_at = $2 WHERE quarantine_id = $1`,
        [event.data.quarantineId, event.data.expiredAt],
      );
      return;
  }
}

/** @example createProjector({ db, projections: [quarantineListProjection('test_results_read_quarantines'), …], … }); */
export function quarantineListProjection(name: string): Projection {
  return {
    name,
    version: 1,
    canHandle: [
      'test.quarantined',
      'test.quarantine-extended',
      'test.quarantine-signatures-changed',
      'test.quarantine-lifted',
      'test.quarantine-expired',
    ],
    setup,
    async apply(tx, events: StoredEvent[], s) {
      for (const stored of events) await applyOne(tx, s, parseQuarantineEvent(stored));
    },
  };
}

export interface ActiveQuarantine {
  quarantineId: string;
  testCaseId: string;
  /** The platform it covers; null for all. */
  platform: string | null;
  ownerId: string;
  expiresAt: string;
  signatureIds: string[];
}

/**
 * The project's quarantines active at `now` of the given tests (all its tests when `testCaseIds` is null).
 *
 * @example const active = await activeQuarantines(db, schema, projectId, ['tc-1'], clock.now());
 */
export async function activeQuarantines(
  db: SqlExecutor,
  schema: string,
  projectId: string,
  testCaseIds: readonly string[] | null,
  now: Date,
): Promise<ActiveQuarantine[]> {
  const { rows } = await db.query<{
    quarantine_id: string;
    test_case_id: string;
    platform: string | null;
    owner_id: string;
    expires_at: Timestamp;
    signature_ids: string[];
  }>(
    `SELECT quarantine_id, test_case_id, platform, owner_id, expires_at, signature_ids
     FROM ${schema}.quarantines
     WHERE project_id = $1 AND status = 'active' AND expires_at > $2
       AND ($3::text[] IS NULL OR test_case_id = ANY($3::text[]))
     ORDER BY test_case_id, quarantine_id`,
    [projectId, now.toISOString(), testCaseIds],
  );
  return rows.map((row) => ({
    quarantineId: row.quarantine_id,
    testCaseId: row.test_case_id,
    platform: row.platform,
    ownerId: row.owner_id,
    expiresAt: new Date(row.expires_at).toISOString(),
    signatureIds: row.signature_ids,
  }));
}
