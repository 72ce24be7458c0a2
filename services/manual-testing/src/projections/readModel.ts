/**
 * The manual-testing read model: one projection fed by this service's own topic (cases, suites, runs,
 * releases, sessions) and by the identity topic (users and memberships, to show and resolve people).
 * Its tables are what every read of the service queries; the case table carries the filter and sort
 * columns of spec §4.3 with an index for each sort, so a project of 50,000 cases lists in milliseconds.
 *
 * Idempotent: the projector applies each event once (per-stream checkpoints in the same transaction), and
 * every statement here is an upsert or guarded by the event's position besides, so applying an event again
 * changes nothing.
 */
import {
  parseIdentityEvent,
  parseManualTestingEvent,
  type CaseContent,
  type EventEnvelope,
  type IdentityEvent,
  type ManualTestingEvent,
  PRIORITIES,
  SEVERITIES,
} from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import { keyOf } from '../shared/ids';

export const MANUAL_READ_MODEL = 'manual_testing_read';

export const severityRank = (value: string): number => SEVERITIES.indexOf(value as never);
export const priorityRank = (value: string): number => PRIORITIES.indexOf(value as never);

/** The list's sorts (queries.ts SORT_COLUMNS), each with its index key: the sort column, then the number. */
const LIST_SORT_KEYS: [string, string][] = [
  ['number', 'number'],
  ['title', 'title_sort, number'],
  ['created', 'created_at, number'],
  ['updated', 'updated_at, number'],
  ['status', 'status, number'],
  ['severity', 'severity_rank, number'],
  ['priority', 'priority_rank, number'],
  ['type', 'type, number'],
  ['layer', 'layer, number'],
  ['behavior', 'behavior, number'],
  ['automation', 'automation_status, number'],
  ['suite', 'suite_id, number'],
];
/** The id a page is made of, and every column a list filters on but the search text. */
const LIST_FILTER_COLUMNS =
  'id, status, severity, priority, type, layer, behavior, automation_status, is_flaky, is_muted, suite_id, tags';

function tables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.users (
       user_id text PRIMARY KEY, email text NOT NULL, email_norm text NOT NULL,
       first_name text NOT NULL, last_name text NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS users_email ON ${s}.users (email_norm)`,
    `CREATE TABLE IF NOT EXISTS ${s}.memberships (
       organization_id text NOT NULL, user_id text NOT NULL, role text NOT NULL,
       PRIMARY KEY (organization_id, user_id))`,
    `CREATE TABLE IF NOT EXISTS ${s}.suites (
       id text PRIMARY KEY, project_id text NOT NULL, name text NOT NULL, description text NOT NULL,
       parent_id text, deleted boolean NOT NULL DEFAULT false,
       created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS suites_by_parent ON ${s}.suites (project_id, parent_id, name)`,
    `CREATE TABLE IF NOT EXISTS ${s}.cases (
       id text PRIMARY KEY, project_id text NOT NULL, number integer NOT NULL, case_key text NOT NULL,
       title_sort text NOT NULL, search_text text NOT NULL, suite_id text,
       status text NOT NULL, severity text NOT NULL, severity_rank smallint NOT NULL,
       priority text NOT NULL, priority_rank smallint NOT NULL, type text NOT NULL, layer text NOT NULL,
       behavior text NOT NULL, automation_status text NOT NULL, to_be_automated boolean NOT NULL,
       is_flaky boolean NOT NULL, is_muted boolean NOT NULL, tags text[] NOT NULL,
       revision integer NOT NULL, created_by text NOT NULL, last_modified_by text NOT NULL,
       created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
       CONSTRAINT cases_number_key UNIQUE (project_id, number) INCLUDE (id))`,
    // The wide part of a case (steps, custom fields, comments…) lives beside the narrow row that lists,
    // filters, sorts and counts: a scan over 50,000 cases reads a few megabytes, not the whole documents.
    `CREATE TABLE IF NOT EXISTS ${s}.case_docs (
       id text PRIMARY KEY, content jsonb NOT NULL, comments jsonb NOT NULL DEFAULT '[]',
       issues jsonb NOT NULL DEFAULT '[]', attachments jsonb NOT NULL DEFAULT '[]')`,
    // A list page is picked by walking one of these in its sort's order: each carries the id and every
    // filter column, so the filters are checked in the index itself (an index-only scan) and a filter that
    // rejects most cases never reads the table. Counts scan the narrowest one, cases_list_by_number.
    ...LIST_SORT_KEYS.map(
      ([name, key]) =>
        `CREATE INDEX IF NOT EXISTS cases_list_by_${name} ON ${s}.cases (project_id, ${key}) INCLUDE (${LIST_FILTER_COLUMNS})`,
    ),
    // The indexes of earlier versions: the sort indexes above replace them.
    ...['title', 'created', 'updated', 'status', 'severity', 'priority', 'type', 'automation', 'suite'].map(
      (name) => `DROP INDEX IF EXISTS ${s}.cases_by_${name}`,
    ),
    `DROP INDEX IF EXISTS ${s}.cases_filters`,
    // Tags rarer than the sort's first page: a bitmap of the cases that carry them.
    `CREATE INDEX IF NOT EXISTS cases_by_tags ON ${s}.cases USING gin (tags)`,
    // Bumped once per change of a project's cases: list counts are cached against it (queries.ts).
    `CREATE TABLE IF NOT EXISTS ${s}.case_versions (project_id text PRIMARY KEY, version bigint NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${s}.case_history (
       case_id text NOT NULL, position integer NOT NULL, kind text NOT NULL, revision integer NOT NULL,
       at timestamptz NOT NULL, by_user text NOT NULL, changes jsonb NOT NULL, comments jsonb NOT NULL,
       issues jsonb NOT NULL, PRIMARY KEY (case_id, position))`,
    `CREATE TABLE IF NOT EXISTS ${s}.runs (
       id text PRIMARY KEY, project_id text NOT NULL, number integer NOT NULL, name text NOT NULL,
       description text NOT NULL, release_id text, assignee_user_id text, created_by text NOT NULL,
       created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
       status text NOT NULL DEFAULT 'not_started', total integer NOT NULL DEFAULT 0,
       untested integer NOT NULL DEFAULT 0, passed integer NOT NULL DEFAULT 0,
       failed integer NOT NULL DEFAULT 0, blocked integer NOT NULL DEFAULT 0,
       skipped integer NOT NULL DEFAULT 0, retest integer NOT NULL DEFAULT 0,
       CONSTRAINT runs_number_key UNIQUE (project_id, number))`,
    `CREATE INDEX IF NOT EXISTS runs_by_release ON ${s}.runs (project_id, release_id)`,
    `CREATE TABLE IF NOT EXISTS ${s}.run_cases (
       run_id text NOT NULL, ref_id text NOT NULL, case_id text NOT NULL, case_number integer NOT NULL,
       position integer NOT NULL, title text NOT NULL, pinned_revision integer NOT NULL,
       assignee_user_id text, result text NOT NULL DEFAULT 'untested', elapsed double precision,
       comment text, linked_issues jsonb NOT NULL DEFAULT '[]', step_results jsonb NOT NULL DEFAULT '[]',
       history jsonb NOT NULL DEFAULT '[]', updated_at timestamptz NOT NULL,
       PRIMARY KEY (run_id, ref_id))`,
    `CREATE INDEX IF NOT EXISTS run_cases_by_position ON ${s}.run_cases (run_id, position)`,
    `CREATE TABLE IF NOT EXISTS ${s}.releases (
       id text PRIMARY KEY, project_id text NOT NULL, number integer NOT NULL, name text NOT NULL,
       description text NOT NULL, start_date text, due_date text, status text NOT NULL,
       created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
       CONSTRAINT releases_number_key UNIQUE (project_id, number))`,
    `CREATE TABLE IF NOT EXISTS ${s}.sessions (
       id text PRIMARY KEY, project_id text NOT NULL, charter text NOT NULL, status text NOT NULL,
       notes text NOT NULL, findings jsonb NOT NULL, release_id text, assignee_user_id text,
       created_by text NOT NULL, started_at timestamptz, completed_at timestamptz,
       created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS sessions_by_project ON ${s}.sessions (project_id, created_at)`,
  ];
}

/**
 * The filter and sort columns of a case, from its content. `search_text` is what `search` reads (key,
 * title and description, lower-cased once here rather than on every row of every search).
 */
function caseColumns(content: CaseContent, number: number) {
  return [
    content.title.toLowerCase(),
    `${keyOf('TC', number)}\n${content.title}\n${content.description}`.toLowerCase(),
    content.suiteId,
    content.status,
    content.severity,
    severityRank(content.severity),
    content.priority,
    priorityRank(content.priority),
    content.type,
    content.layer,
    content.behavior,
    content.automationStatus,
    content.toBeAutomated,
    content.isFlaky,
    content.isMuted,
    content.tags,
  ];
}

interface Changes {
  [field: string]: { from: unknown; to: unknown };
}

async function applyManual(tx: SqlExecutor, s: string, envelope: EventEnvelope, event: ManualTestingEvent) {
  const position = envelope.streamPosition;
  switch (event.type) {
    case 'manual.number-allocated':
      return;
    case 'manual-case.created': {
      const d = event.data;
      await tx.query(
        `INSERT INTO ${s}.cases (id, project_id, number, case_key, title_sort, search_text, suite_id,
           status, severity, severity_rank, priority, priority_rank, type, layer, behavior, automation_status,
           to_be_automated, is_flaky, is_muted, tags, revision, created_by, last_modified_by, created_at,
           updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
           1, $21, $21, $22, $22)
         ON CONFLICT (id) DO NOTHING`,
        [
          d.caseId,
          d.projectId,
          d.number,
          keyOf('TC', d.number),
          ...caseColumns(d.content, d.number),
          d.by,
          d.at,
        ],
      );
      await tx.query(
        `INSERT INTO ${s}.case_docs (id, content, comments, issues)
         VALUES ($1, $2::text::jsonb, $3::text::jsonb, $4::text::jsonb) ON CONFLICT (id) DO NOTHING`,
        [
          d.caseId,
          JSON.stringify(d.content),
          JSON.stringify(d.comments.map((c) => ({ id: c.id, text: c.text, by: d.by, at: d.at }))),
          JSON.stringify(d.issues.map((key) => ({ key, by: d.by, at: d.at }))),
        ],
      );
      const changes: Changes = {};
      await history(tx, s, d.caseId, position, 'created', 1, d.at, d.by, changes, d.comments, d.issues);
      return;
    }
    case 'manual-case.revised': {
      const d = event.data;
      const { rows } = await tx.query<{
        content: CaseContent;
        comments: { id: string }[];
        issues: { key: string }[];
      }>(`SELECT content, comments, issues FROM ${s}.case_docs WHERE id = $1 FOR UPDATE`, [d.caseId]);
      const row = rows[0];
      const { rows: numbered } = await tx.query<{ number: number }>(
        `SELECT number FROM ${s}.cases WHERE id = $1`,
        [d.caseId],
      );
      const number = numbered[0]?.number;
      if (!row || number === undefined) return;
      const content: CaseContent = { ...row.content, ...d.set };
      const known = new Set(row.comments.map((c) => c.id));
      const comments = [
        ...row.comments,
        ...d.comments.filter((c) => !known.has(c.id)).map((c) => ({ ...c, by: d.by, at: d.at })),
      ];
      const linked = new Set(row.issues.map((issue) => issue.key));
      const issues = [
        ...row.issues,
        ...d.issuesLinked.filter((key) => !linked.has(key)).map((key) => ({ key, by: d.by, at: d.at })),
      ];
      await tx.query(
        `UPDATE ${s}.cases SET title_sort = $2, search_text = $3, suite_id = $4, status = $5,
           severity = $6, severity_rank = $7, priority = $8, priority_rank = $9, type = $10, layer = $11,
           behavior = $12, automation_status = $13, to_be_automated = $14, is_flaky = $15, is_muted = $16,
           tags = $17, revision = $18, last_modified_by = $19, updated_at = $20
         WHERE id = $1`,
        [d.caseId, ...caseColumns(content, number), d.revision, d.by, d.at],
      );
      await tx.query(
        `UPDATE ${s}.case_docs SET content = $2::text::jsonb, comments = $3::text::jsonb,
           issues = $4::text::jsonb WHERE id = $1`,
        [d.caseId, JSON.stringify(content), JSON.stringify(comments), JSON.stringify(issues)],
      );
      const changes: Changes = {};
      for (const [field, to] of Object.entries(d.set)) {
        changes[field] = { from: (d.previous as Record<string, unknown>)[field] ?? null, to };
      }
      const kind = Object.keys(changes).length > 0 ? 'updated' : 'commented';
      await history(
        tx,
        s,
        d.caseId,
        position,
        kind,
        d.revision,
        d.at,
        d.by,
        changes,
        d.comments,
        d.issuesLinked,
      );
      return;
    }
    case 'manual-case.attachment-added': {
      const d = event.data;
      const entry = { ...d.attachment, uploadedAt: d.at, by: d.by };
      await tx.query(
        `UPDATE ${s}.case_docs SET attachments = attachments || jsonb_build_array($2::text::jsonb)
         WHERE id = $1 AND NOT attachments @> jsonb_build_array(jsonb_build_object('id', $3::text))`,
        [d.caseId, JSON.stringify(entry), d.attachment.id],
      );
      const { rows } = await tx.query<{ revision: number }>(`SELECT revision FROM ${s}.cases WHERE id = $1`, [
        d.caseId,
      ]);
      const changes: Changes = { attachments: { from: null, to: d.attachment.originalFileName } };
      const revision = rows[0]?.revision ?? 1;
      await history(tx, s, d.caseId, position, 'attachment-added', revision, d.at, d.by, changes, [], []);
      return;
    }
    case 'manual-suite.created': {
      const d = event.data;
      await tx.query(
        `INSERT INTO ${s}.suites (id, project_id, name, description, parent_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (id) DO NOTHING`,
        [d.suiteId, d.projectId, d.fields.name, d.fields.description, d.fields.parentId, d.at],
      );
      return;
    }
    case 'manual-suite.updated': {
      const d = event.data;
      await tx.query(
        `UPDATE ${s}.suites SET name = coalesce($2, name), description = coalesce($3, description),
           parent_id = CASE WHEN $4::boolean THEN $5 ELSE parent_id END, updated_at = $6 WHERE id = $1`,
        [
          d.suiteId,
          d.set.name ?? null,
          d.set.description ?? null,
          d.set.parentId !== undefined,
          d.set.parentId ?? null,
          d.at,
        ],
      );
      return;
    }
    case 'manual-suite.deleted':
      await tx.query(`UPDATE ${s}.suites SET deleted = true, updated_at = $2 WHERE id = $1`, [
        event.data.suiteId,
        event.data.at,
      ]);
      return;
    case 'manual-run.created': {
      const d = event.data;
      await tx.query(
        `INSERT INTO ${s}.runs (id, project_id, number, name, description, release_id, assignee_user_id,
           created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) ON CONFLICT (id) DO NOTHING`,
        [d.runId, d.projectId, d.number, d.name, d.description, d.releaseId, d.assigneeUserId, d.by, d.at],
      );
      await tx.query(
        `INSERT INTO ${s}.run_cases (run_id, ref_id, case_id, case_number, position, title, pinned_revision,
           assignee_user_id, updated_at)
         SELECT $1, c.ref_id, c.case_id, c.number, c.ord::int, c.title, c.revision, $3, $4
         FROM ROWS FROM (jsonb_to_recordset($2::text::jsonb)
           AS (ref_id text, case_id text, number int, title text, revision int)) WITH ORDINALITY
           AS c (ref_id, case_id, number, title, revision, ord)
         ON CONFLICT (run_id, ref_id) DO NOTHING`,
        [
          d.runId,
          JSON.stringify(
            d.cases.map((c) => ({
              ref_id: c.refId,
              case_id: c.caseId,
              number: c.number,
              title: c.title,
              revision: c.revision,
            })),
          ),
          d.assigneeUserId,
          d.at,
        ],
      );
      await recount(tx, s, d.runId);
      return;
    }
    case 'manual-run.case-updated': {
      const d = event.data;
      const entry = {
        position,
        mode: d.mode,
        result: d.result ?? null,
        ...(d.assigneeUserId === undefined ? {} : { assigneeUserId: d.assigneeUserId }),
        elapsed: d.elapsed ?? null,
        comment: d.comment ?? null,
        linkedIssues: d.linkedIssues ?? null,
        stepResults: d.stepResults ?? null,
        by: d.by,
        at: d.at,
      };
      await tx.query(
        `UPDATE ${s}.run_cases SET
           result = coalesce($3, result),
           assignee_user_id = CASE WHEN $4::boolean THEN $5 ELSE assignee_user_id END,
           elapsed = coalesce($6, elapsed),
           comment = coalesce($7, comment),
           linked_issues = coalesce($8::text::jsonb, linked_issues),
           step_results = coalesce($9::text::jsonb, step_results),
           history = history || jsonb_build_array($10::text::jsonb),
           updated_at = $11
         WHERE run_id = $1 AND ref_id = $2
           AND NOT history @> jsonb_build_array(jsonb_build_object('position', $12::int))`,
        [
          d.runId,
          d.refId,
          d.result ?? null,
          d.assigneeUserId !== undefined,
          d.assigneeUserId ?? null,
          d.elapsed ?? null,
          d.comment ?? null,
          d.linkedIssues === undefined ? null : JSON.stringify(d.linkedIssues),
          d.stepResults === undefined ? null : JSON.stringify(d.stepResults),
          JSON.stringify(entry),
          d.at,
          position,
        ],
      );
      await tx.query(`UPDATE ${s}.runs SET updated_at = greatest(updated_at, $2) WHERE id = $1`, [
        d.runId,
        d.at,
      ]);
      await recount(tx, s, d.runId);
      return;
    }
    case 'manual-release.created': {
      const d = event.data;
      const f = d.fields;
      await tx.query(
        `INSERT INTO ${s}.releases (id, project_id, number, name, description, start_date, due_date, status,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) ON CONFLICT (id) DO NOTHING`,
        [d.releaseId, d.projectId, d.number, f.name, f.description, f.startDate, f.dueDate, f.status, d.at],
      );
      return;
    }
    case 'manual-release.updated': {
      const d = event.data;
      const has = (key: string) => key in d.set;
      await tx.query(
        `UPDATE ${s}.releases SET name = coalesce($2, name), description = coalesce($3, description),
           start_date = CASE WHEN $4::boolean THEN $5 ELSE start_date END,
           due_date = CASE WHEN $6::boolean THEN $7 ELSE due_date END,
           status = coalesce($8, status), updated_at = $9
         WHERE id = $1`,
        [
          d.releaseId,
          d.set.name ?? null,
          d.set.description ?? null,
          has('startDate'),
          d.set.startDate ?? null,
          has('dueDate'),
          d.set.dueDate ?? null,
          d.set.status ?? null,
          d.at,
        ],
      );
      return;
    }
    case 'manual-session.created': {
      const d = event.data;
      const f = d.fields;
      await tx.query(
        `INSERT INTO ${s}.sessions (id, project_id, charter, status, notes, findings, release_id,
           assignee_user_id, created_by, started_at, completed_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8, $9,
           CASE WHEN $4 <> 'planned' THEN $10::timestamptz END,
           CASE WHEN $4 = 'completed' THEN $10::timestamptz END, $10, $10)
         ON CONFLICT (id) DO NOTHING`,
        [
          d.sessionId,
          d.projectId,
          f.charter,
          f.status,
          f.notes,
          JSON.stringify(f.findings),
          f.releaseId,
          f.assigneeUserId,
          d.by,
          d.at,
        ],
      );
      return;
    }
    case 'manual-session.updated': {
      const d = event.data;
      const has = (key: string) => key in d.set;
      await tx.query(
        `UPDATE ${s}.sessions SET charter = coalesce($2, charter), status = coalesce($3, status),
           notes = coalesce($4, notes), findings = coalesce($5::text::jsonb, findings),
           release_id = CASE WHEN $6::boolean THEN $7 ELSE release_id END,
           assignee_user_id = CASE WHEN $8::boolean THEN $9 ELSE assignee_user_id END,
           started_at = CASE WHEN $3 IN ('in_progress', 'completed') THEN coalesce(started_at, $10::timestamptz)
             ELSE started_at END,
           completed_at = CASE WHEN $3 = 'completed' THEN coalesce(completed_at, $10::timestamptz)
             ELSE completed_at END,
           updated_at = $10
         WHERE id = $1`,
        [
          d.sessionId,
          d.set.charter ?? null,
          d.set.status ?? null,
          d.set.notes ?? null,
          d.set.findings === undefined ? null : JSON.stringify(d.set.findings),
          has('releaseId'),
          d.set.releaseId ?? null,
          has('assigneeUserId'),
          d.set.assigneeUserId ?? null,
          d.at,
        ],
      );
      return;
    }
  }
}

async function history(
  tx: SqlExecutor,
  s: string,
  caseId: string,
  position: number,
  kind: string,
  revision: number,
  at: string,
  by: string,
  changes: Changes,
  comments: { text: string }[],
  issues: string[],
) {
  const { rowCount } = await tx.query(
    `INSERT INTO ${s}.case_history (case_id, position, kind, revision, at, by_user, changes, comments, issues)
     VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8::text::jsonb, $9::text::jsonb)
     ON CONFLICT (case_id, position) DO NOTHING`,
    [
      caseId,
      position,
      kind,
      revision,
      at,
      by,
      JSON.stringify(changes),
      JSON.stringify(comments.map((c) => c.text)),
      JSON.stringify(issues),
    ],
  );
  // Once per event (the history row is its guard), so applying an event again bumps nothing.
  if (rowCount === 1) {
    await tx.query(
      `INSERT INTO ${s}.case_versions (project_id, version) SELECT project_id, 1 FROM ${s}.cases WHERE id = $1
       ON CONFLICT (project_id) DO UPDATE SET version = case_versions.version + 1`,
      [caseId],
    );
  }
}

/** The run's counts and status from its cases: completed once nothing is untested or to retest. */
async function recount(tx: SqlExecutor, s: string, runId: string) {
  await tx.query(
    `UPDATE ${s}.runs r SET total = c.total, untested = c.untested, passed = c.passed, failed = c.failed,
       blocked = c.blocked, skipped = c.skipped, retest = c.retest,
       status = CASE WHEN c.untested = c.total THEN 'not_started'
                     WHEN c.untested = 0 AND c.retest = 0 THEN 'completed' ELSE 'in_progress' END
     FROM (SELECT count(*)::int AS total,
             count(*) FILTER (WHERE result = 'untested')::int AS untested,
             count(*) FILTER (WHERE result = 'passed')::int AS passed,
             count(*) FILTER (WHERE result = 'failed')::int AS failed,
             count(*) FILTER (WHERE result = 'blocked')::int AS blocked,
             count(*) FILTER (WHERE result = 'skipped')::int AS skipped,
             count(*) FILTER (WHERE result = 'retest')::int AS retest
           FROM ${s}.run_cases WHERE run_id = $1) c
     WHERE r.id = $1`,
    [runId],
  );
}

async function applyIdentity(tx: SqlExecutor, s: string, event: IdentityEvent) {
  switch (event.type) {
    case 'user.created':
      await tx.query(
        `INSERT INTO ${s}.users (user_id, email, email_norm, first_name, last_name) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (user_id) DO UPDATE SET email = EXCLUDED.email, email_norm = EXCLUDED.email_norm,
           first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name`,
        [
          event.data.userId,
          event.data.email,
          event.data.email.trim().toLowerCase(),
          event.data.firstName,
          event.data.lastName,
        ],
      );
      return;
    case 'membership.set':
      await tx.query(
        `INSERT INTO ${s}.memberships (organization_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
        [event.data.organizationId, event.data.userId, event.data.role],
      );
      return;
    default:
      return;
  }
}

/**
 * Where PostgreSQL offers pg_trgm (a trusted extension since PostgreSQL 13), `search` is answered from a
 * trigram index instead of a scan of the project's cases. With btree_gin (trusted too) the index leads
 * with the project: a search then reads the posting lists of one project's cases, where a trigram index
 * alone matches the word in every project's cases and drops the others' rows one by one afterwards (80 ms
 * for a count over six projects of 50,000 cases). Without the extensions (PGlite) the scan stays: a
 * failed CREATE EXTENSION is rolled back to a savepoint, so the rest of the setup goes on.
 */
async function trigramIndex(tx: SqlExecutor, schema: string): Promise<void> {
  const homes = new Map<string, string>();
  for (const extension of ['pg_trgm', 'btree_gin']) {
    await tx.query('SAVEPOINT manual_extension');
    try {
      await tx.query(`CREATE EXTENSION IF NOT EXISTS ${extension}`);
      await tx.query('RELEASE SAVEPOINT manual_extension');
    } catch {
      await tx.query('ROLLBACK TO SAVEPOINT manual_extension');
    }
    const { rows } = await tx.query<{ nspname: string }>(
      `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
       WHERE e.extname = $1`,
      [extension],
    );
    if (rows[0]) homes.set(extension, rows[0].nspname);
  }
  const trgm = homes.get('pg_trgm');
  if (trgm === undefined) return;
  if (homes.has('btree_gin')) {
    await tx.query(
      `CREATE INDEX IF NOT EXISTS cases_search_by_project ON ${schema}.cases
       USING gin (project_id, search_text "${trgm}".gin_trgm_ops)`,
    );
    await tx.query(`DROP INDEX IF EXISTS ${schema}.cases_search`);
  } else {
    await tx.query(
      `CREATE INDEX IF NOT EXISTS cases_search ON ${schema}.cases USING gin (search_text "${trgm}".gin_trgm_ops)`,
    );
  }
}

const isIdentityType = (type: string) => type === 'user.created' || type === 'membership.set';

/**
 * @example const projector = createProjector({ db, projection: manualReadModel(MANUAL_READ_MODEL), logger });
 */
export function manualReadModel(name: string = MANUAL_READ_MODEL): Projection {
  return {
    name,
    async setup(tx, schema) {
      for (const statement of tables(schema)) await tx.query(statement);
      await trigramIndex(tx, schema);
    },
    async apply(tx, events, schema) {
      for (const envelope of events) {
        const raw = { type: envelope.type, version: envelope.version, data: envelope.data };
        if (isIdentityType(envelope.type)) {
          await applyIdentity(tx, schema, parseIdentityEvent(raw));
        } else if (envelope.type.startsWith('manual')) {
          await applyManual(tx, schema, envelope, parseManualTestingEvent(raw));
        }
      }
    },
  };
}
