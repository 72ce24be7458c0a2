/**
 * What the webhooks service knows of quarantines (issue 32), from the test-results topic: each one as its
 * test.quarantined event made it, changed by its later events. The lifted and expired events carry only
 * the quarantine's id, so this record is what describes the quarantine in their deliveries.
 */
import {
  keptInstant,
  keptInstantOrNull,
  type QuarantineEvent,
  type QuarantineStatus,
  type QuarantineWebhookEventName,
  type WebhookQuarantine,
} from '@verdict/contracts';
import type { SqlExecutor } from '@verdict/platform';

/** One quarantine as the record keeps it (instants as RFC 3339 strings). */
export interface QuarantineRecord {
  id: string;
  projectId: string;
  testCaseId: string;
  file: string;
  titlePath: string[];
  project: string | null;
  reason: string;
  ownerId: string;
  expiresAt: string;
  status: QuarantineStatus;
  automatic: boolean;
  signatures: string[];
  createdBy: string;
  endedAt: string | null;
  endedBy: string | null;
  endReason: string | null;
}

/** The project's quarantine page in the Verdict UI; an ended quarantine's view lists it. */
export function quarantineUrl(publicUrl: string, projectId: string, status: QuarantineStatus): string {
  const page = `${publicUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(projectId)}/quarantine`;
  return status === 'active' ? page : `${page}?view=${status}`;
}

/** The record of a quarantine as its test.quarantined event made it. */
function created(event: Extract<QuarantineEvent, { type: 'test.quarantined' }>): QuarantineRecord {
  const d = event.data;
  return {
    id: d.quarantineId,
    projectId: d.projectId,
    testCaseId: d.target.testCaseId,
    file: d.target.file,
    titlePath: d.target.titlePath,
    project: d.target.project,
    reason: d.reason,
    ownerId: d.ownerId,
    expiresAt: keptInstant(d.expiresAt),
    status: 'active',
    automatic: d.automatic,
    signatures: d.evidence.signatures.map((signature) => signature.id),
    createdBy: d.by,
    endedAt: null,
    endedBy: null,
    endReason: null,
  };
}

/**
 * The record after one event, and what a delivery of that event describes. A quarantine ends once: an end
 * (or a change) coming to an ended one, as a redelivery would, leaves it as it is. Events of a quarantine
 * this record never saw created change nothing and describe nothing.
 */
export function evolveQuarantine(
  record: QuarantineRecord | undefined,
  event: QuarantineEvent,
): { record: QuarantineRecord | undefined; described: QuarantineRecord | undefined } {
  if (event.type === 'test.quarantined') {
    // Described as it was made, even when its later events were applied before (a redelivery).
    const made = created(event);
    return { record: record ?? made, described: made };
  }
  if (!record) return { record, described: undefined };
  const active = record.status === 'active';
  switch (event.type) {
    case 'test.quarantine-extended':
      return {
        record: active ? { ...record, expiresAt: keptInstant(event.data.expiresAt) } : record,
        described: undefined,
      };
    case 'test.quarantine-signatures-changed':
      return {
        record: active ? { ...record, signatures: event.data.signatures.map((s) => s.id) } : record,
        described: undefined,
      };
    case 'test.quarantine-lifted': {
      const next: QuarantineRecord = active
        ? {
            ...record,
            status: 'lifted',
            endedAt: keptInstant(event.data.at),
            endedBy: event.data.by,
            endReason: event.data.reason,
          }
        : record;
      return { record: next, described: next };
    }
    case 'test.quarantine-expired': {
      // As the quarantine list records an expiry: ended at its expiry, by no one, for no stated reason.
      const next: QuarantineRecord = active
        ? { ...record, status: 'expired', endedAt: keptInstant(event.data.expiredAt) }
        : record;
      return { record: next, described: next };
    }
  }
}

/** The webhook event a quarantine event is delivered as, if any (extensions and signature changes are not). */
export function webhookEventOfQuarantine(event: QuarantineEvent): QuarantineWebhookEventName | null {
  return event.type === 'test.quarantined' ||
    event.type === 'test.quarantine-lifted' ||
    event.type === 'test.quarantine-expired'
    ? event.type
    : null;
}

export function webhookQuarantineOf(record: QuarantineRecord, publicUrl: string): WebhookQuarantine {
  return {
    id: record.id,
    testCaseId: record.testCaseId,
    file: record.file,
    titlePath: record.titlePath,
    project: record.project,
    reason: record.reason,
    ownerId: record.ownerId,
    expiresAt: record.expiresAt,
    status: record.status,
    automatic: record.automatic,
    signatures: record.signatures,
    createdBy: record.createdBy,
    endedAt: record.endedAt,
    endedBy: record.endedBy,
    endReason: record.endReason,
    url: quarantineUrl(publicUrl, record.projectId, record.status),
  };
}

export async function setupQuarantineTables(tx: SqlExecutor, schema: string): Promise<void> {
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.quarantines (
       id text PRIMARY KEY,
       project_id text NOT NULL,
       test_case_id text NOT NULL,
       file text NOT NULL,
       title_path jsonb NOT NULL,
       platform text,
       reason text NOT NULL,
       owner_id text NOT NULL,
       expires_at timestamptz NOT NULL,
       status text NOT NULL,
       automatic boolean NOT NULL,
       signature_ids jsonb NOT NULL,
       created_by text NOT NULL,
       ended_at timestamptz,
       ended_by text,
       end_reason text
     )`,
  );
}

interface QuarantineRow {
  id: string;
  project_id: string;
  test_case_id: string;
  file: string;
  title_path: string[];
  platform: string | null;
  reason: string;
  owner_id: string;
  expires_at: Date;
  status: QuarantineStatus;
  automatic: boolean;
  signature_ids: string[];
  created_by: string;
  ended_at: Date | null;
  ended_by: string | null;
  end_reason: string | null;
}

/** The records of these quarantines, by id: one statement for the whole batch. */
export async function quarantinesOf(
  tx: SqlExecutor,
  schema: string,
  ids: string[],
): Promise<Map<string, QuarantineRecord>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<QuarantineRow>(
    `SELECT * FROM ${schema}.quarantines WHERE id = ANY($1::text[])`,
    [ids],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        projectId: row.project_id,
        testCaseId: row.test_case_id,
        file: row.file,
        titlePath: row.title_path,
        project: row.platform,
        reason: row.reason,
        ownerId: row.owner_id,
        expiresAt: keptInstant(row.expires_at),
        status: row.status,
        automatic: row.automatic,
        signatures: row.signature_ids,
        createdBy: row.created_by,
        endedAt: keptInstantOrNull(row.ended_at),
        endedBy: row.ended_by,
        endReason: row.end_reason,
      },
    ]),
  );
}

/** Writes the records as the batch left them: one statement. */
export async function saveQuarantines(
  tx: SqlExecutor,
  schema: string,
  records: QuarantineRecord[],
): Promise<void> {
  if (records.length === 0) return;
  await tx.query(
    `INSERT INTO ${schema}.quarantines (id, project_id, test_case_id, file, title_path, platform, reason,
       owner_id, expires_at, status, automatic, signature_ids, created_by, ended_at, ended_by, end_reason)
     SELECT id, project_id, test_case_id, file, title_path, platform, reason, owner_id, expires_at, status,
       automatic, signature_ids, created_by, ended_at, ended_by, end_reason
     FROM jsonb_to_recordset($1::jsonb) AS r(id text, project_id text, test_case_id text, file text,
       title_path jsonb, platform text, reason text, owner_id text, expires_at timestamptz, status text,
       automatic boolean, signature_ids jsonb, created_by text, ended_at timestamptz, ended_by text,
       end_reason text)
     ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at, status = EXCLUDED.status,
       signature_ids = EXCLUDED.signature_ids, ended_at = EXCLUDED.ended_at, ended_by = EXCLUDED.ended_by,
       end_reason = EXCLUDED.end_reason`,
    [
      JSON.stringify(
        records.map((r) => ({
          id: r.id,
          project_id: r.projectId,
          test_case_id: r.testCaseId,
          file: r.file,
          title_path: r.titlePath,
          platform: r.project,
          reason: r.reason,
          owner_id: r.ownerId,
          expires_at: r.expiresAt,
          status: r.status,
          automatic: r.automatic,
          signature_ids: r.signatures,
          created_by: r.createdBy,
          ended_at: r.endedAt,
          ended_by: r.endedBy,
          end_reason: r.endReason,
        })),
      ),
    ],
  );
}
