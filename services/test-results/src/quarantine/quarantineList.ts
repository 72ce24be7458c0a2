/**
 * The quarantines of a project (issue 32): one row per quarantine with its target, owner, expiry, the
 * signatures it forgives and how it ended. Serves the quarantine list, the verdicts (which failures are
 * forgiven) and the reporters' quarantine fetch. Whether a quarantine is active is read against the clock
 * (`status = 'active' AND expires_at > now`), so a quarantine stops forgiving at its expiry even before the
 * sweep records it as expired.
 */
import {
  parseQuarantineEvent,
  QuarantinePolicyChanged,
  type QuarantinePolicy,
  type QuarantinePolicyDocument,
  type Quarantine,
  type QuarantineEvent,
  type QuarantineEvidence,
  type QuarantineListQuery,
  type QuarantineStatus,
} from '@verdict/contracts';
import type { Projection, SqlExecutor, StoredEvent } from '@verdict/platform';
import type { Page, Timestamp } from '../readStore';

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
  // The project's auto-quarantine policy (policy.ts), one row per project once set.
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.quarantine_policies (
    project_id text PRIMARY KEY, policy jsonb NOT NULL, updated_at timestamptz NOT NULL,
    updated_by text NOT NULL)`);
  // The sweep looks for active quarantines whose expiry has come.
  await tx.query(
    `CREATE INDEX IF NOT EXISTS quarantines_due ON ${s}.quarantines (expires_at) WHERE status = 'active'`,
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
      'quarantine.policy-changed',
    ],
    setup,
    async apply(tx, events: StoredEvent[], s) {
      for (const stored of events) {
        if (QuarantinePolicyChanged.is(stored)) {
          const { projectId, policy, by, at } = QuarantinePolicyChanged.parse(stored);
          await tx.query(
            `INSERT INTO ${s}.quarantine_policies (project_id, policy, updated_at, updated_by)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (project_id) DO UPDATE SET policy = EXCLUDED.policy, updated_at = EXCLUDED.updated_at,
               updated_by = EXCLUDED.updated_by`,
            [projectId, JSON.stringify(policy), at, by],
          );
        } else {
          await applyOne(tx, s, parseQuarantineEvent(stored));
        }
      }
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
  // The reporters ask for a thousand at once: instants as text and the ids as one string each, which the
  // driver hands over without parsing arrays and dates.
  const { rows } = await db.query<{
    quarantine_id: string;
    test_case_id: string;
    platform: string | null;
    owner_id: string;
    expires_at: string;
    signature_ids: string;
  }>(
    `SELECT quarantine_id, test_case_id, platform, owner_id,
       to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at,
       array_to_string(signature_ids, ',') AS signature_ids
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
    expiresAt: row.expires_at,
    signatureIds: row.signature_ids === '' ? [] : row.signature_ids.split(','),
  }));
}

interface QuarantineRow {
  quarantine_id: string;
  project_id: string;
  test_case_id: string;
  file: string;
  title_path: string[];
  platform: string | null;
  reason: string;
  owner_id: string;
  expires_at: Timestamp;
  status: QuarantineStatus;
  automatic: boolean;
  release_clean_runs: number | null;
  evidence: QuarantineEvidence;
  created_by: string;
  created_at: Timestamp;
  ended_at: Timestamp | null;
  ended_by: string | null;
  end_reason: string | null;
}

const iso = (value: Timestamp): string => new Date(value).toISOString();

/** A row as the API shows it; one past its expiry is expired, even before the sweep records it. */
function quarantineOf(row: QuarantineRow, now: Date): Quarantine {
  const due = row.status === 'active' && new Date(row.expires_at).getTime() <= now.getTime();
  return {
    id: row.quarantine_id,
    projectId: row.project_id,
    testCaseId: row.test_case_id,
    file: row.file,
    titlePath: row.title_path,
    title: row.title_path.at(-1) ?? '',
    project: row.platform,
    reason: row.reason,
    ownerId: row.owner_id,
    expiresAt: iso(row.expires_at),
    status: due ? 'expired' : row.status,
    automatic: row.automatic,
    releaseRule: row.release_clean_runs === null ? null : { cleanRuns: row.release_clean_runs },
    evidence: row.evidence,
    createdBy: row.created_by,
    createdAt: iso(row.created_at),
    endedAt: due ? iso(row.expires_at) : row.ended_at === null ? null : iso(row.ended_at),
    endedBy: row.ended_by,
    endReason: row.end_reason,
  };
}

/**
 * One quarantine of the project; null when the project has none with this id.
 *
 * @example const quarantine = await quarantineById(db, schema, projectId, quarantineId, clock.now());
 */
export async function quarantineById(
  db: SqlExecutor,
  schema: string,
  projectId: string,
  quarantineId: string,
  now: Date,
): Promise<Quarantine | null> {
  const { rows } = await db.query<QuarantineRow>(
    `SELECT * FROM ${schema}.quarantines WHERE project_id = $1 AND quarantine_id = $2`,
    [projectId, quarantineId],
  );
  return rows[0] ? quarantineOf(rows[0], now) : null;
}

/**
 * A page of the project's quarantines: active ones soonest expiry first, ended ones latest end first.
 *
 * @example const { items, total } = await listQuarantines(db, schema, projectId, query, clock.now());
 */
export async function listQuarantines(
  db: SqlExecutor,
  schema: string,
  projectId: string,
  query: QuarantineListQuery,
  now: Date,
): Promise<Page<Quarantine>> {
  const where = [`project_id = $1`];
  const params: unknown[] = [projectId, now.toISOString()];
  const active = `(status = 'active' AND expires_at > $2)`;
  if (query.status === 'active' || query.expiringWithinDays !== undefined) where.push(active);
  else if (query.status === 'expired')
    where.push(`(status = 'expired' OR (status = 'active' AND expires_at <= $2))`);
  else if (query.status === 'lifted') where.push(`status = 'lifted'`);
  if (query.expiringWithinDays !== undefined) {
    params.push(query.expiringWithinDays);
    where.push(`expires_at <= $2::timestamptz + ($${params.length}::int * interval '1 day')`);
  }
  if (query.ownerId !== undefined) {
    params.push(query.ownerId);
    where.push(`owner_id = $${params.length}`);
  }
  if (query.testCaseId !== undefined) {
    params.push(query.testCaseId);
    where.push(`test_case_id = $${params.length}`);
  }
  const filter = where.join(' AND ');
  params.push(query.limit, (query.page - 1) * query.limit);
  // One statement whatever the page: the count, and the page beside it (no row past the last page). A
  // second statement with the filter alone would leave the clock ($2) unused for some statuses, which
  // PostgreSQL refuses (it cannot type a parameter nothing reads).
  const { rows } = await db.query<(QuarantineRow | Record<keyof QuarantineRow, null>) & { total: number }>(
    `WITH matched AS (SELECT * FROM ${schema}.quarantines WHERE ${filter})
     SELECT counted.total, page.* FROM (SELECT count(*)::int AS total FROM matched) counted
     LEFT JOIN LATERAL (
       SELECT * FROM matched
       ORDER BY ${active} DESC, CASE WHEN ${active} THEN expires_at END ASC,
         coalesce(ended_at, expires_at) DESC, quarantine_id
       LIMIT $${params.length - 1} OFFSET $${params.length}
     ) page ON true`,
    params,
  );
  const items = rows.flatMap((row) =>
    row.quarantine_id === null ? [] : [quarantineOf(row as QuarantineRow, now)],
  );
  return { items, total: rows[0]?.total ?? 0 };
}

/**
 * The project's active quarantine of the test that overlaps this platform (null: every platform), if any.
 *
 * @example const existing = await overlappingQuarantine(db, schema, projectId, testCaseId, 'chromium', now);
 */
export async function overlappingQuarantine(
  db: SqlExecutor,
  schema: string,
  projectId: string,
  testCaseId: string,
  platform: string | null,
  now: Date,
): Promise<string | null> {
  const { rows } = await db.query<{ quarantine_id: string }>(
    `SELECT quarantine_id FROM ${schema}.quarantines
     WHERE project_id = $1 AND test_case_id = $2 AND status = 'active' AND expires_at > $3
       AND (platform IS NULL OR $4::text IS NULL OR platform = $4::text)
     LIMIT 1`,
    [projectId, testCaseId, now.toISOString(), platform],
  );
  return rows[0]?.quarantine_id ?? null;
}

/**
 * The quarantines the sweep should expire: recorded active, their expiry reached.
 *
 * @example for (const { quarantineId, projectId } of await dueQuarantines(db, schema, clock.now(), 100)) …
 */
export async function dueQuarantines(
  db: SqlExecutor,
  schema: string,
  now: Date,
  limit: number,
): Promise<{ quarantineId: string; projectId: string }[]> {
  const { rows } = await db.query<{ quarantine_id: string; project_id: string }>(
    `SELECT quarantine_id, project_id FROM ${schema}.quarantines
     WHERE status = 'active' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    [now.toISOString(), limit],
  );
  return rows.map((row) => ({ quarantineId: row.quarantine_id, projectId: row.project_id }));
}

/**
 * The project's auto-quarantine policy; never set: null.
 *
 * @example const { policy } = await quarantinePolicyOf(db, schema, projectId);
 */
export async function quarantinePolicyOf(
  db: SqlExecutor,
  schema: string,
  projectId: string,
): Promise<QuarantinePolicyDocument> {
  const { rows } = await db.query<{ policy: QuarantinePolicy; updated_at: Timestamp; updated_by: string }>(
    `SELECT policy, updated_at, updated_by FROM ${schema}.quarantine_policies WHERE project_id = $1`,
    [projectId],
  );
  const [row] = rows;
  if (!row) return { policy: null, updatedAt: null, updatedBy: null };
  return { policy: row.policy, updatedAt: iso(row.updated_at), updatedBy: row.updated_by };
}
