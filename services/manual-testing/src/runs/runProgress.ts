/**
 * Run progress: each manual run with its counts by result and its status, and its cases (pinned to the
 * revision the run was created with) with their latest result and the history of updates. A run is
 * completed once nothing is untested or to retest. Applying an event again changes nothing: a run and its
 * cases are inserted once, and a case update is recorded once by its stream position. Version 2 adds each
 * run case's evidence (attachments) and its entries in the history.
 */
import { keptInstant, type ManualTestingEvent, type Progress } from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import { attachmentOf, type StoredAttachment } from '../cases/caseDetail';
import { keyOf, numberOfKey } from '../shared/ids';
import { manualEvents } from '../shared/manualEvents';
import { byStatusAndRelease, idOfRef, pageOf, type ManualReadStore } from '../shared/readStore';
import { userOf, usersByIds } from '../users/userDirectory';
import type { ManualUser } from '@verdict/contracts';

async function setup(tx: SqlExecutor, s: string) {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.runs (
    id text PRIMARY KEY, project_id text NOT NULL, number integer NOT NULL, name text NOT NULL,
    description text NOT NULL, release_id text, assignee_user_id text, created_by text NOT NULL,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
    status text NOT NULL DEFAULT 'not_started', total integer NOT NULL DEFAULT 0,
    untested integer NOT NULL DEFAULT 0, passed integer NOT NULL DEFAULT 0,
    failed integer NOT NULL DEFAULT 0, blocked integer NOT NULL DEFAULT 0,
    skipped integer NOT NULL DEFAULT 0, retest integer NOT NULL DEFAULT 0,
    CONSTRAINT runs_number_key UNIQUE (project_id, number))`);
  await tx.query(`CREATE INDEX IF NOT EXISTS runs_by_release ON ${s}.runs (project_id, release_id)`);
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.run_cases (
    run_id text NOT NULL, ref_id text NOT NULL, case_id text NOT NULL, case_number integer NOT NULL,
    position integer NOT NULL, title text NOT NULL, pinned_revision integer NOT NULL,
    assignee_user_id text, result text NOT NULL DEFAULT 'untested', elapsed double precision,
    comment text, linked_issues jsonb NOT NULL DEFAULT '[]', step_results jsonb NOT NULL DEFAULT '[]',
    attachments jsonb NOT NULL DEFAULT '[]', history jsonb NOT NULL DEFAULT '[]',
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (run_id, ref_id))`);
  await tx.query(`CREATE INDEX IF NOT EXISTS run_cases_by_position ON ${s}.run_cases (run_id, position)`);
}

type RunEvent<T extends ManualTestingEvent['type']> = Extract<ManualTestingEvent, { type: T }>;

async function runCreated(tx: SqlExecutor, s: string, { data: d }: RunEvent<'manual-run.created'>) {
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
}

async function runCaseUpdated(
  tx: SqlExecutor,
  s: string,
  position: number,
  { data: d }: RunEvent<'manual-run.case-updated'>,
) {
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
  await tx.query(`UPDATE ${s}.runs SET updated_at = greatest(updated_at, $2) WHERE id = $1`, [d.runId, d.at]);
}

/**
 * Evidence attached or removed: the attachment joins (or leaves) the run case's list, and the history
 * names it; both once, by the event's stream position.
 */
async function evidenceChanged(
  tx: SqlExecutor,
  s: string,
  position: number,
  event: RunEvent<'manual-run.case-attachment-added' | 'manual-run.case-attachment-removed'>,
) {
  const { data: d } = event;
  const attached = event.type === 'manual-run.case-attachment-added';
  const entry = {
    position,
    mode: 'evidence',
    evidence: {
      action: attached ? 'attached' : 'removed',
      attachmentId: d.attachment.id,
      originalFileName: d.attachment.originalFileName,
    },
    result: null,
    elapsed: null,
    comment: null,
    linkedIssues: null,
    stepResults: null,
    by: d.by,
    at: d.at,
  };
  const stored: StoredAttachment = { ...d.attachment, uploadedAt: d.at };
  await tx.query(
    `UPDATE ${s}.run_cases SET
       attachments = CASE WHEN $3::boolean THEN attachments || jsonb_build_array($4::text::jsonb)
         ELSE coalesce((SELECT jsonb_agg(a ORDER BY n) FROM jsonb_array_elements(attachments)
           WITH ORDINALITY AS kept (a, n) WHERE a->>'id' <> $5), '[]'::jsonb) END,
       history = history || jsonb_build_array($6::text::jsonb),
       updated_at = $7
     WHERE run_id = $1 AND ref_id = $2
       AND NOT history @> jsonb_build_array(jsonb_build_object('position', $8::int))`,
    [
      d.runId,
      d.refId,
      attached,
      JSON.stringify(stored),
      d.attachment.id,
      JSON.stringify(entry),
      d.at,
      position,
    ],
  );
  await tx.query(`UPDATE ${s}.runs SET updated_at = greatest(updated_at, $2) WHERE id = $1`, [d.runId, d.at]);
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

/** @example createProjector({ db, projections: [runProgressProjection('manual_testing_read_run_progress'), …], … }); */
export function runProgressProjection(name: string): Projection {
  return {
    name,
    // 2: run cases keep their evidence (attachments).
    version: 2,
    canHandle: [
      'manual-run.created',
      'manual-run.case-updated',
      'manual-run.case-attachment-added',
      'manual-run.case-attachment-removed',
    ],
    setup,
    async apply(tx, events, s) {
      for (const { envelope, event } of manualEvents(events)) {
        const position = envelope.streamPosition;
        switch (event.type) {
          case 'manual-run.created':
            await runCreated(tx, s, event);
            await recount(tx, s, event.data.runId);
            break;
          case 'manual-run.case-updated':
            await runCaseUpdated(tx, s, position, event);
            await recount(tx, s, event.data.runId);
            break;
          // Evidence changes no count.
          case 'manual-run.case-attachment-added':
          case 'manual-run.case-attachment-removed':
            await evidenceChanged(tx, s, position, event);
            break;
        }
      }
    },
  };
}

/** A run's (or a release's summed) counts by result. */
export interface Counts {
  total: number;
  untested: number;
  passed: number;
  failed: number;
  blocked: number;
  skipped: number;
  retest: number;
}

export function progressOf(counts: Counts): Progress {
  const total = Number(counts.total);
  const untested = Number(counts.untested);
  const passed = Number(counts.passed);
  const retest = Number(counts.retest);
  // A case to retest is to be run again: not complete, as the run's status says (docs/manual-testing.md, "Runs").
  const completed = total - untested - retest;
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    total,
    untested,
    passed,
    failed: Number(counts.failed),
    blocked: Number(counts.blocked),
    skipped: Number(counts.skipped),
    retest,
    completed,
    percentComplete: total === 0 ? 0 : round((completed / total) * 100),
    passRate: completed === 0 ? 0 : round((passed / completed) * 100),
  };
}

interface RunRow extends Counts {
  id: string;
  number: number;
  name: string;
  description: string;
  status: 'not_started' | 'in_progress' | 'completed';
  release_id: string | null;
  release_number: number | null;
  release_name: string | null;
  assignee_user_id: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

const RUN_SELECT = (store: ManualReadStore) => `SELECT r.*, rel.number AS release_number,
  rel.name AS release_name FROM ${store.schemas.runProgress}.runs r
  LEFT JOIN ${store.schemas.releaseList}.releases rel ON rel.id = r.release_id`;

function runOf(row: RunRow, users: Map<string, ManualUser>) {
  return {
    _id: row.id,
    runId: keyOf('RUN', row.number),
    name: row.name,
    description: row.description,
    status: row.status,
    release:
      row.release_id !== null && row.release_number !== null
        ? { _id: row.release_id, releaseId: keyOf('MS', row.release_number), name: row.release_name ?? '' }
        : null,
    assignee: userOf(users, row.assignee_user_id),
    createdBy: userOf(users, row.created_by),
    progress: progressOf(row),
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

/** One page of the project's runs, newest first; `releaseId` is the release's `_id` or MS-<n>. */
export async function listRuns(
  store: ManualReadStore,
  projectId: string,
  query: { page: number; limit: number; status?: string | undefined; releaseId?: string | undefined },
) {
  const { rows, total } = await pageOf<RunRow>(store, {
    select: RUN_SELECT(store),
    table: `${store.schemas.runProgress}.runs`,
    alias: 'r',
    where: await byStatusAndRelease(store, 'r', projectId, query),
    orderBy: 'r.number DESC',
    page: query.page,
    limit: query.limit,
  });
  const users = await usersByIds(
    store,
    rows.flatMap((r) => [r.assignee_user_id, r.created_by]),
  );
  return { items: rows.map((row) => runOf(row, users)), total };
}

/** The internal id of the run `ref` names (its `_id` or RUN-<n>) in the project, or null. */
export const runIdOf = (store: ManualReadStore, projectId: string, ref: string) =>
  idOfRef(store.db, `${store.schemas.runProgress}.runs`, 'RUN', projectId, ref);

interface RunCaseRow {
  ref_id: string;
  case_id: string;
  case_number: number;
  title: string;
  pinned_revision: number;
  current_revision: number | null;
  assignee_user_id: string | null;
  result: string;
  elapsed: number | null;
  comment: string | null;
  linked_issues: Record<string, unknown>[];
  step_results: { order: number; status: string; comment: string }[];
  attachments: StoredAttachment[];
  history: {
    mode: 'quick' | 'detailed' | 'evidence';
    evidence?: { action: 'attached' | 'removed'; attachmentId: string; originalFileName: string };
    result: string | null;
    assigneeUserId?: string | null;
    elapsed: number | null;
    comment: string | null;
    linkedIssues: Record<string, unknown>[] | null;
    stepResults: { order: number; status: string; comment: string }[] | null;
    by: string;
    at: string;
  }[];
  updated_at: Date;
}

async function runCasesOf(store: ManualReadStore, runId: string, refId?: string) {
  const { rows } = await store.db.query<RunCaseRow>(
    `SELECT rc.*, c.revision AS current_revision FROM ${store.schemas.runProgress}.run_cases rc
     LEFT JOIN ${store.schemas.caseList}.cases c ON c.id = rc.case_id
     WHERE rc.run_id = $1 ${refId === undefined ? '' : 'AND rc.ref_id = $2'} ORDER BY rc.position`,
    refId === undefined ? [runId] : [runId, refId],
  );
  const users = await usersByIds(
    store,
    rows.flatMap((r) => [r.assignee_user_id, ...r.history.flatMap((h) => [h.by, h.assigneeUserId ?? null])]),
  );
  return rows.map((r) => ({
    _id: r.ref_id,
    caseRef: { _id: r.case_id, caseId: keyOf('TC', r.case_number) },
    title: r.title,
    caseRevision: r.pinned_revision,
    currentCaseRevision: r.current_revision,
    caseChangedSince: r.current_revision !== null && r.current_revision !== r.pinned_revision,
    result: r.result,
    assignee: userOf(users, r.assignee_user_id),
    elapsed: r.elapsed,
    comment: r.comment,
    linkedIssues: r.linked_issues,
    stepResults: r.step_results,
    attachments: r.attachments.map((a) => attachmentOf(store, a)),
    history: r.history.map((h) => ({
      mode: h.mode,
      ...(h.evidence === undefined ? {} : { evidence: h.evidence }),
      result: h.result,
      ...(h.assigneeUserId === undefined ? {} : { assignee: userOf(users, h.assigneeUserId) }),
      elapsed: h.elapsed,
      comment: h.comment,
      linkedIssues: h.linkedIssues,
      stepResults: h.stepResults,
      by: userOf(users, h.by),
      at: h.at,
    })),
    updatedAt: keptInstant(r.updated_at),
  }));
}

export async function runDetail(store: ManualReadStore, projectId: string, runId: string) {
  const { rows } = await store.db.query<RunRow>(
    `${RUN_SELECT(store)} WHERE r.project_id = $1 AND r.id = $2`,
    [projectId, runId],
  );
  const row = rows[0];
  if (!row) return null;
  const users = await usersByIds(store, [row.assignee_user_id, row.created_by]);
  return { ...runOf(row, users), testCases: await runCasesOf(store, runId) };
}

export async function runCase(store: ManualReadStore, runId: string, refId: string) {
  return (await runCasesOf(store, runId, refId))[0] ?? null;
}

/**
 * The reference id of the run case `ref` names in the run (its reference id, TC-<n> or the case `_id`, as
 * the run decider finds it), or null.
 */
export async function runCaseRefOf(store: ManualReadStore, runId: string, ref: string) {
  const number = numberOfKey('TC', ref);
  const { rows } = await store.db.query<{ ref_id: string }>(
    `SELECT ref_id FROM ${store.schemas.runProgress}.run_cases
     WHERE run_id = $1 AND (ref_id = $2 OR case_number = $3 OR case_id = $2)
     ORDER BY (ref_id = $2) DESC, (case_number = $3) DESC NULLS LAST LIMIT 1`,
    [runId, ref, number],
  );
  return rows[0]?.ref_id ?? null;
}
