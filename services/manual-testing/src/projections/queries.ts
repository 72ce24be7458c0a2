/**
 * The reads of the service, over the read model (and the links model beside it). Every query is scoped
 * to the path's project, so an id of another project reads as missing.
 */
import { keptDayOrInstant, keptInstant, keptInstantOrNull } from '@verdict/contracts';
import type {
  CaseAttachment,
  CaseChange,
  CaseContent,
  LinkedTest,
  ManualCasesQuery,
  ManualTestCase,
  ManualTestCaseDetail,
  ManualUser,
  Progress,
} from '@verdict/contracts';
import type { ReadStore } from '@verdict/platform';
import { keyOf, numberOfKey, type KeyPrefix } from '../shared/ids';

/** The manual read model (ReadStore), with the linked-tests model and what its answers are built with. */
export interface ManualReadStore extends ReadStore {
  /** The linked-tests model's schema. */
  links: string;
  /** A signed, time-limited download URL for an attachment's blob. */
  signBlobUrl(key: string): string;
  /** List totals by filter, valid while the project's case version is the one they were counted at. */
  counts?: Map<string, { version: string; total: number }>;
}

/** Distinct filters whose totals a replica remembers. */
const MAX_CACHED_COUNTS = 2_000;

/**
 * The number of cases a filter matches. Counting is most of a list's cost on a large project, and lists are
 * read far more often than cases change, so a total is kept until the project's case version moves (the
 * projector bumps it in the transaction of every change). The version is read before counting: a change
 * committed meanwhile leaves the total tagged with the older version, so the next read counts again.
 */
async function countCases(store: ManualReadStore, projectId: string, filter: string, params: unknown[]) {
  const { rows: versions } = await store.db.query<{ version: string }>(
    `SELECT version::text AS version FROM ${store.schema}.case_versions WHERE project_id = $1`,
    [projectId],
    { prepare: true },
  );
  const version = versions[0]?.version ?? '0';
  const key = `${projectId}\u0000${filter}\u0000${JSON.stringify(params)}`;
  const cached = store.counts?.get(key);
  if (cached && cached.version === version) return cached.total;
  const { rows } = await store.db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${store.schema}.cases c WHERE ${filter}`,
    params,
    { prepare: true },
  );
  const total = rows[0]?.total ?? 0;
  if (store.counts) {
    store.counts.delete(key);
    store.counts.set(key, { version, total });
    if (store.counts.size > MAX_CACHED_COUNTS)
      store.counts.delete(store.counts.keys().next().value as string);
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------
// Users

export async function usersByIds(
  store: ManualReadStore,
  ids: (string | null)[],
): Promise<Map<string, ManualUser>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const { rows } = await store.db.query<{
    user_id: string;
    email: string;
    first_name: string;
    last_name: string;
  }>(
    `SELECT user_id, email, first_name, last_name FROM ${store.schema}.users WHERE user_id = ANY($1::text[])`,
    [wanted],
  );
  return new Map(
    rows.map((r) => [
      r.user_id,
      { _id: r.user_id, firstName: r.first_name, lastName: r.last_name, email: r.email },
    ]),
  );
}

/** The user an id or an e-mail names among the organization's members; null when none does. */
export async function memberUserId(
  store: ManualReadStore,
  organizationId: string,
  ref: string,
): Promise<string | null> {
  const { rows } = await store.db.query<{ user_id: string }>(
    `SELECT u.user_id FROM ${store.schema}.users u
     JOIN ${store.schema}.memberships m ON m.user_id = u.user_id AND m.organization_id = $1
     WHERE u.user_id = $2 OR u.email_norm = lower(trim($2)) LIMIT 1`,
    [organizationId, ref],
  );
  return rows[0]?.user_id ?? null;
}

const userOf = (users: Map<string, ManualUser>, id: string | null): ManualUser | null =>
  id === null ? null : (users.get(id) ?? { _id: id, firstName: '', lastName: '', email: '' });

// ---------------------------------------------------------------------------------------------------------
// Cases

interface CaseRow {
  id: string;
  project_id: string;
  number: number;
  case_key: string;
  revision: number;
  created_at: Date;
  updated_at: Date;
  content: CaseContent;
  attachments: StoredAttachment[];
  suite_name: string | null;
  created_by: ManualUser | null;
  last_modified_by: ManualUser | null;
  linked_tests: {
    _id: string;
    fullTitle: string;
    displayTitle: string;
    linkedAt: string;
    status: string;
    runId: string;
    at: string;
  }[];
}

interface StoredAttachment {
  id: string;
  fileName: string;
  originalFileName: string;
  fileSize: number;
  mimeType: string;
  blobKey: string;
  stepRef: string | null;
  uploadedAt: string;
}

const SORT_COLUMNS: Record<ManualCasesQuery['sortBy'], string> = {
  caseId: 'c.number',
  title: 'c.title_sort',
  createdAt: 'c.created_at',
  updatedAt: 'c.updated_at',
  'classification.status': 'c.status',
  'classification.severity': 'c.severity_rank',
  'classification.priority': 'c.priority_rank',
  'classification.type': 'c.type',
  'classification.layer': 'c.layer',
  'classification.behavior': 'c.behavior',
  'automation.status': 'c.automation_status',
};

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const userJson = (alias: string) =>
  `CASE WHEN ${alias}.user_id IS NULL THEN NULL ELSE jsonb_build_object('_id', ${alias}.user_id,
     'firstName', ${alias}.first_name, 'lastName', ${alias}.last_name, 'email', ${alias}.email) END`;

/**
 * The wide rows of the cases `ids` names, in that order, with their suite, people and linked tests: the
 * second step of a page (a deferred join). The page's ids come first from a narrow query on the sort's
 * index (listCases), so a deep page or a broad filter never drags 50,000 wide rows (steps, custom fields)
 * through the sort. Apart, this statement's text never changes and it is planned once per connection,
 * where the whole join planned for every filter's LIMIT and OFFSET cost about a millisecond a request.
 */
async function caseRows(store: ManualReadStore, projectId: string, ids: string[]): Promise<CaseRow[]> {
  if (ids.length === 0) return [];
  const s = store.schema;
  const { rows } = await store.db.query<CaseRow>(
    `SELECT c.id, c.project_id, c.number, c.case_key, c.revision, c.created_at, c.updated_at, d.content,
      d.attachments, s.name AS suite_name, ${userJson('cu')} AS created_by, ${userJson('mu')} AS last_modified_by,
      coalesce(lt.linked, '[]'::jsonb) AS linked_tests
    FROM unnest($2::text[]) WITH ORDINALITY AS page(id, position)
    JOIN ${s}.cases c ON c.id = page.id AND c.project_id = $1 JOIN ${s}.case_docs d ON d.id = page.id
    LEFT JOIN ${s}.suites s ON s.id = c.suite_id
    LEFT JOIN ${s}.users cu ON cu.user_id = c.created_by
    LEFT JOIN ${s}.users mu ON mu.user_id = c.last_modified_by
    LEFT JOIN LATERAL (
      SELECT jsonb_agg(jsonb_build_object('_id', l.test_id, 'fullTitle', l.full_title,
        'displayTitle', l.display_title, 'linkedAt', l.linked_at, 'status', l.last_status,
        'runId', l.last_run_id, 'at', l.last_at) ORDER BY l.linked_at, l.test_id) AS linked
      FROM ${store.links}.linked_tests l WHERE l.project_id = c.project_id AND l.case_number = c.number
    ) lt ON true
    ORDER BY page.position`,
    [projectId, ids],
    { prepare: true },
  );
  return rows;
}

function attachmentOf(store: ManualReadStore, stored: StoredAttachment): CaseAttachment {
  return {
    _id: stored.id,
    fileName: stored.fileName,
    originalFileName: stored.originalFileName,
    fileSize: stored.fileSize,
    mimeType: stored.mimeType,
    blobUrl: store.signBlobUrl(stored.blobKey),
    uploadedAt: stored.uploadedAt,
    stepRef: stored.stepRef,
  };
}

function caseOf(store: ManualReadStore, row: CaseRow): ManualTestCase {
  const c = row.content;
  const linked: LinkedTest[] = row.linked_tests.map((l) => ({
    _id: l._id,
    fullTitle: l.fullTitle,
    displayTitle: l.displayTitle,
    linkedAt: keptInstant(l.linkedAt),
    lastResult: { status: l.status, runId: l.runId, at: keptInstant(l.at) },
  }));
  const latest = linked
    .map((test) => test.lastResult)
    .filter((result) => result !== null)
    .sort((a, b) => b.at.localeCompare(a.at))[0];
  return {
    _id: row.id,
    caseId: row.case_key,
    title: c.title,
    description: c.description,
    preconditions: c.preconditions,
    postconditions: c.postconditions,
    metadata: {
      project: row.project_id,
      suite: c.suiteId !== null && row.suite_name !== null ? { _id: c.suiteId, name: row.suite_name } : null,
      createdBy: row.created_by,
      lastModifiedBy: row.last_modified_by,
    },
    classification: {
      status: c.status,
      severity: c.severity,
      priority: c.priority,
      type: c.type,
      layer: c.layer,
      behavior: c.behavior,
    },
    automation: {
      status: c.automationStatus,
      toBeAutomated: c.toBeAutomated,
      isFlaky: c.isFlaky,
      isMuted: c.isMuted,
      latestAutomatedResult: latest ?? null,
    },
    stepFormat: c.stepFormat,
    steps: c.steps,
    tags: c.tags,
    customFields: c.customFields,
    linkedTests: linked,
    attachments: row.attachments.map((a) => attachmentOf(store, a)),
    revision: row.revision,
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

/** Spec §4.3: one page of the project's cases, filtered and sorted, with the total that match. */
export async function listCases(
  store: ManualReadStore,
  projectId: string,
  query: ManualCasesQuery,
): Promise<{ items: ManualTestCase[]; total: number }> {
  const where = ['c.project_id = $1'];
  const params: unknown[] = [projectId];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (query.search !== undefined && query.search !== '') {
    add((n) => `c.search_text LIKE ${n}`, likePattern(query.search.toLowerCase()));
  }
  const equal: [keyof ManualCasesQuery, string][] = [
    ['status', 'c.status'],
    ['severity', 'c.severity'],
    ['priority', 'c.priority'],
    ['type', 'c.type'],
    ['layer', 'c.layer'],
    ['behavior', 'c.behavior'],
    ['automationStatus', 'c.automation_status'],
    ['isFlaky', 'c.is_flaky'],
    ['isMuted', 'c.is_muted'],
  ];
  for (const [name, column] of equal) {
    const value = query[name];
    if (value !== undefined) add((n) => `${column} = ${n}`, value);
  }
  if (query.suiteId === 'null') where.push('c.suite_id IS NULL');
  else if (query.suiteId !== undefined) add((n) => `c.suite_id = ${n}`, query.suiteId);
  if (query.tags !== undefined && query.tags.length > 0) add((n) => `c.tags && ${n}::text[]`, query.tags);
  const order = query.sortOrder === 'desc' ? 'DESC' : 'ASC';
  const sort = SORT_COLUMNS[query.sortBy];
  const orderBy = sort === 'c.number' ? `c.number ${order}` : `${sort} ${order}, c.number ${order}`;
  const filter = where.join(' AND ');
  const offset = (query.page - 1) * query.limit;
  const [{ rows: page }, total] = await Promise.all([
    // Prepared: the text depends on which filters and which sort are used, never on their values.
    store.db.query<{ id: string }>(
      `SELECT c.id FROM ${store.schema}.cases c WHERE ${filter} ORDER BY ${orderBy}
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.limit, offset],
      { prepare: true },
    ),
    countCases(store, projectId, filter, params),
  ]);
  const rows = await caseRows(
    store,
    projectId,
    page.map((row) => row.id),
  );
  return { items: rows.map((row) => caseOf(store, row)), total };
}

/** The internal id of the case `ref` names (its `_id` or TC-<n>) in the project, or null. */
/** The internal id of the row of `table` that `ref` names in the project (its `_id` or <prefix>-<n>), or null. */
async function idOfRef(
  store: ManualReadStore,
  table: 'cases' | 'runs' | 'releases',
  prefix: KeyPrefix,
  projectId: string,
  ref: string,
): Promise<string | null> {
  const number = numberOfKey(prefix, ref);
  const { rows } = await store.db.query<{ id: string }>(
    `SELECT id FROM ${store.schema}.${table} WHERE project_id = $1 AND ${number === null ? 'id' : 'number'} = $2`,
    [projectId, number ?? ref],
  );
  return rows[0]?.id ?? null;
}

export const caseIdOf = (store: ManualReadStore, projectId: string, ref: string) =>
  idOfRef(store, 'cases', 'TC', projectId, ref);

interface HistoryRow {
  kind: CaseChange['kind'];
  revision: number;
  at: Date;
  by_user: string;
  changes: CaseChange['changes'];
  comments: string[];
  issues: string[];
}

async function historyOf(store: ManualReadStore, caseId: string, limit: number, offset: number) {
  const [{ rows }, counted] = await Promise.all([
    store.db.query<HistoryRow>(
      `SELECT kind, revision, at, by_user, changes, comments, issues FROM ${store.schema}.case_history
       WHERE case_id = $1 ORDER BY position DESC LIMIT $2 OFFSET $3`,
      [caseId, limit, offset],
    ),
    store.db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM ${store.schema}.case_history WHERE case_id = $1`,
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

/** One page of a case's change history, newest first. */
export function caseHistory(store: ManualReadStore, caseId: string, page: number, limit: number) {
  return historyOf(store, caseId, limit, (page - 1) * limit);
}

/** A case with its comments, issues and (latest 100 entries of) change history; null when missing. */
export async function caseDetail(
  store: ManualReadStore,
  projectId: string,
  caseId: string,
): Promise<ManualTestCaseDetail | null> {
  const [rows, extra] = await Promise.all([
    caseRows(store, projectId, [caseId]),
    store.db.query<{
      comments: { id: string; text: string; by: string; at: string }[];
      issues: { key: string; by: string; at: string }[];
    }>(`SELECT comments, issues FROM ${store.schema}.case_docs WHERE id = $1`, [caseId]),
  ]);
  const found = rows[0];
  const row = extra.rows[0];
  if (!found || !row) return null;
  const item = caseOf(store, found);
  const users = await usersByIds(store, [...row.comments.map((c) => c.by), ...row.issues.map((i) => i.by)]);
  const history = await historyOf(store, caseId, 100, 0);
  return {
    ...item,
    comments: row.comments.map((c) => ({
      _id: c.id,
      text: c.text,
      author: userOf(users, c.by),
      createdAt: c.at,
    })),
    issues: row.issues.map((i) => ({ key: i.key, linkedAt: i.at, linkedBy: userOf(users, i.by) })),
    history: history.items,
    historyTotal: history.total,
  };
}

/** The cases a run is created from: those named (by `_id` or TC-<n>) and those in the suites (nested). */
export async function casesForRun(
  store: ManualReadStore,
  projectId: string,
  caseRefs: string[],
  suiteIds: string[],
  everyCase = false,
): Promise<{ found: { id: string; number: number; title: string; revision: number }[]; missing: string[] }> {
  const numbers = caseRefs.map((ref) => numberOfKey('TC', ref)).filter((n): n is number => n !== null);
  const ids = caseRefs.filter((ref) => numberOfKey('TC', ref) === null);
  const { rows } = await store.db.query<{ id: string; number: number; title: string; revision: number }>(
    `WITH RECURSIVE tree AS (
       SELECT id FROM ${store.schema}.suites WHERE project_id = $1 AND id = ANY($4::text[]) AND NOT deleted
       UNION SELECT s.id FROM ${store.schema}.suites s JOIN tree ON s.parent_id = tree.id
       WHERE s.project_id = $1 AND NOT s.deleted
     )
     SELECT c.id, c.number, d.content->>'title' AS title, c.revision FROM ${store.schema}.cases c
     JOIN ${store.schema}.case_docs d ON d.id = c.id
     WHERE c.project_id = $1
       AND ($5::boolean OR c.id = ANY($2::text[]) OR c.number = ANY($3::int[]) OR c.suite_id IN (SELECT id FROM tree))
     ORDER BY c.number`,
    [projectId, ids, numbers, suiteIds, everyCase],
  );
  const missing = caseRefs.filter((ref) => {
    const number = numberOfKey('TC', ref);
    return !rows.some((r) => (number === null ? r.id === ref : r.number === number));
  });
  return { found: rows, missing };
}

// ---------------------------------------------------------------------------------------------------------
// Suites

interface SuiteRow {
  id: string;
  name: string;
  description: string;
  parent_id: string | null;
  created_at: Date;
  updated_at: Date;
  case_count: number;
}

const SUITE_SELECT = (
  s: string,
) => `SELECT t.id, t.name, t.description, t.parent_id, t.created_at, t.updated_at,
  (SELECT count(*)::int FROM ${s}.cases c WHERE c.project_id = t.project_id AND c.suite_id = t.id) AS case_count
  FROM ${s}.suites t`;

/** The suite and its ancestors, root first; empty when the suite is missing or deleted. */
export async function suitePath(store: ManualReadStore, projectId: string, suiteId: string) {
  const { rows } = await store.db.query<{ id: string; name: string; depth: number }>(
    `WITH RECURSIVE up AS (
       SELECT id, name, parent_id, 0 AS depth FROM ${store.schema}.suites
       WHERE project_id = $1 AND id = $2 AND NOT deleted
       UNION ALL SELECT s.id, s.name, s.parent_id, up.depth + 1 FROM ${store.schema}.suites s
       JOIN up ON s.id = up.parent_id WHERE up.depth < 100
     ) SELECT id, name, depth FROM up ORDER BY depth DESC`,
    [projectId, suiteId],
  );
  return rows.map((r) => ({ _id: r.id, name: r.name }));
}

async function suiteOf(store: ManualReadStore, projectId: string, row: SuiteRow) {
  return {
    _id: row.id,
    name: row.name,
    description: row.description,
    parentId: row.parent_id,
    path: await suitePath(store, projectId, row.id),
    caseCount: row.case_count,
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

export async function findSuite(store: ManualReadStore, projectId: string, suiteId: string) {
  const { rows } = await store.db.query<SuiteRow>(
    `${SUITE_SELECT(store.schema)} WHERE t.project_id = $1 AND t.id = $2 AND NOT t.deleted`,
    [projectId, suiteId],
  );
  return rows[0] ? suiteOf(store, projectId, rows[0]) : null;
}

export async function suiteChildren(
  store: ManualReadStore,
  projectId: string,
  suiteId: string,
): Promise<number> {
  const { rows } = await store.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${store.schema}.suites WHERE project_id = $1 AND parent_id = $2 AND NOT deleted`,
    [projectId, suiteId],
  );
  return rows[0]?.n ?? 0;
}

export async function listSuites(
  store: ManualReadStore,
  projectId: string,
  query: { page: number; limit: number; parentId?: string | undefined },
) {
  const params: unknown[] = [projectId];
  let filter = 't.project_id = $1 AND NOT t.deleted';
  if (query.parentId === 'null') filter += ' AND t.parent_id IS NULL';
  else if (query.parentId !== undefined) {
    params.push(query.parentId);
    filter += ' AND t.parent_id = $2';
  }
  const offset = (query.page - 1) * query.limit;
  const { rows } = await store.db.query<SuiteRow>(
    `${SUITE_SELECT(store.schema)} WHERE ${filter} ORDER BY t.name, t.id LIMIT ${query.limit} OFFSET ${offset}`,
    params,
  );
  const counted = await store.db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${store.schema}.suites t WHERE ${filter}`,
    params,
  );
  const items = [];
  for (const row of rows) items.push(await suiteOf(store, projectId, row));
  return { items, total: counted.rows[0]?.total ?? 0 };
}

// ---------------------------------------------------------------------------------------------------------
// Runs and releases

interface Counts {
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

const RUN_SELECT = (s: string) => `SELECT r.*, rel.number AS release_number, rel.name AS release_name
  FROM ${s}.runs r LEFT JOIN ${s}.releases rel ON rel.id = r.release_id`;

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

export async function listRuns(
  store: ManualReadStore,
  projectId: string,
  query: { page: number; limit: number; status?: string | undefined; releaseId?: string | undefined },
) {
  const params: unknown[] = [projectId];
  let filter = 'r.project_id = $1';
  if (query.status !== undefined) {
    params.push(query.status);
    filter += ` AND r.status = $${params.length}`;
  }
  if (query.releaseId !== undefined) {
    const releaseId = await releaseIdOf(store, projectId, query.releaseId);
    params.push(releaseId ?? '');
    filter += ` AND r.release_id = $${params.length}`;
  }
  const offset = (query.page - 1) * query.limit;
  const { rows } = await store.db.query<RunRow>(
    `${RUN_SELECT(store.schema)} WHERE ${filter} ORDER BY r.number DESC LIMIT ${query.limit} OFFSET ${offset}`,
    params,
  );
  const counted = await store.db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${store.schema}.runs r WHERE ${filter}`,
    params,
  );
  const users = await usersByIds(
    store,
    rows.flatMap((r) => [r.assignee_user_id, r.created_by]),
  );
  return { items: rows.map((row) => runOf(row, users)), total: counted.rows[0]?.total ?? 0 };
}

export const runIdOf = (store: ManualReadStore, projectId: string, ref: string) =>
  idOfRef(store, 'runs', 'RUN', projectId, ref);

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
  history: {
    mode: 'quick' | 'detailed';
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
    `SELECT rc.*, c.revision AS current_revision FROM ${store.schema}.run_cases rc
     LEFT JOIN ${store.schema}.cases c ON c.id = rc.case_id
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
    history: r.history.map((h) => ({
      mode: h.mode,
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
    `${RUN_SELECT(store.schema)} WHERE r.project_id = $1 AND r.id = $2`,
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

export const releaseIdOf = (store: ManualReadStore, projectId: string, ref: string) =>
  idOfRef(store, 'releases', 'MS', projectId, ref);

interface ReleaseRow extends Counts {
  id: string;
  number: number;
  name: string;
  description: string;
  start_date: string | null;
  due_date: string | null;
  status: 'planned' | 'active' | 'completed';
  created_at: Date;
  updated_at: Date;
  run_count: number;
}

const RELEASE_SELECT = (s: string) => `SELECT rel.*, coalesce(p.run_count, 0)::int AS run_count,
  coalesce(p.total, 0)::int AS total, coalesce(p.untested, 0)::int AS untested,
  coalesce(p.passed, 0)::int AS passed, coalesce(p.failed, 0)::int AS failed,
  coalesce(p.blocked, 0)::int AS blocked, coalesce(p.skipped, 0)::int AS skipped,
  coalesce(p.retest, 0)::int AS retest
  FROM ${s}.releases rel LEFT JOIN LATERAL (
    SELECT count(*) AS run_count, sum(total) AS total, sum(untested) AS untested, sum(passed) AS passed,
      sum(failed) AS failed, sum(blocked) AS blocked, sum(skipped) AS skipped, sum(retest) AS retest
    FROM ${s}.runs r WHERE r.project_id = rel.project_id AND r.release_id = rel.id) p ON true`;

function releaseOf(row: ReleaseRow) {
  return {
    _id: row.id,
    releaseId: keyOf('MS', row.number),
    name: row.name,
    description: row.description,
    startDate: keptDayOrInstant(row.start_date),
    dueDate: keptDayOrInstant(row.due_date),
    status: row.status,
    runCount: row.run_count,
    progress: progressOf(row),
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

export async function releaseDetail(store: ManualReadStore, projectId: string, releaseId: string) {
  const { rows } = await store.db.query<ReleaseRow>(
    `${RELEASE_SELECT(store.schema)} WHERE rel.project_id = $1 AND rel.id = $2`,
    [projectId, releaseId],
  );
  return rows[0] ? releaseOf(rows[0]) : null;
}

export async function listReleases(
  store: ManualReadStore,
  projectId: string,
  query: { page: number; limit: number; status?: string | undefined },
) {
  const params: unknown[] = [projectId];
  let filter = 'rel.project_id = $1';
  if (query.status !== undefined) {
    params.push(query.status);
    filter += ' AND rel.status = $2';
  }
  const offset = (query.page - 1) * query.limit;
  const { rows } = await store.db.query<ReleaseRow>(
    `${RELEASE_SELECT(store.schema)} WHERE ${filter} ORDER BY rel.number DESC LIMIT ${query.limit} OFFSET ${offset}`,
    params,
  );
  const counted = await store.db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${store.schema}.releases rel WHERE ${filter}`,
    params,
  );
  return { items: rows.map(releaseOf), total: counted.rows[0]?.total ?? 0 };
}

// ---------------------------------------------------------------------------------------------------------
// Sessions

interface SessionRow {
  id: string;
  charter: string;
  status: 'planned' | 'in_progress' | 'completed';
  notes: string;
  findings: { title: string; description: string; severity: string; issueKey: string | null }[];
  release_id: string | null;
  release_number: number | null;
  release_name: string | null;
  assignee_user_id: string | null;
  created_by: string;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const SESSION_SELECT = (s: string) => `SELECT t.*, rel.number AS release_number, rel.name AS release_name
  FROM ${s}.sessions t LEFT JOIN ${s}.releases rel ON rel.id = t.release_id`;

function sessionOf(row: SessionRow, users: Map<string, ManualUser>) {
  return {
    _id: row.id,
    charter: row.charter,
    status: row.status,
    notes: row.notes,
    findings: row.findings,
    release:
      row.release_id !== null && row.release_number !== null
        ? { _id: row.release_id, releaseId: keyOf('MS', row.release_number), name: row.release_name ?? '' }
        : null,
    assignee: userOf(users, row.assignee_user_id),
    createdBy: userOf(users, row.created_by),
    startedAt: keptInstantOrNull(row.started_at),
    completedAt: keptInstantOrNull(row.completed_at),
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

export async function sessionDetail(store: ManualReadStore, projectId: string, sessionId: string) {
  const { rows } = await store.db.query<SessionRow>(
    `${SESSION_SELECT(store.schema)} WHERE t.project_id = $1 AND t.id = $2`,
    [projectId, sessionId],
  );
  const row = rows[0];
  if (!row) return null;
  return sessionOf(row, await usersByIds(store, [row.assignee_user_id, row.created_by]));
}

export async function listSessions(
  store: ManualReadStore,
  projectId: string,
  query: { page: number; limit: number; status?: string | undefined; releaseId?: string | undefined },
) {
  const params: unknown[] = [projectId];
  let filter = 't.project_id = $1';
  if (query.status !== undefined) {
    params.push(query.status);
    filter += ` AND t.status = $${params.length}`;
  }
  if (query.releaseId !== undefined) {
    params.push((await releaseIdOf(store, projectId, query.releaseId)) ?? '');
    filter += ` AND t.release_id = $${params.length}`;
  }
  const offset = (query.page - 1) * query.limit;
  const { rows } = await store.db.query<SessionRow>(
    `${SESSION_SELECT(store.schema)} WHERE ${filter} ORDER BY t.created_at DESC, t.id DESC
     LIMIT ${query.limit} OFFSET ${offset}`,
    params,
  );
  const counted = await store.db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${store.schema}.sessions t WHERE ${filter}`,
    params,
  );
  const users = await usersByIds(
    store,
    rows.flatMap((r) => [r.assignee_user_id, r.created_by]),
  );
  return { items: rows.map((row) => sessionOf(row, users)), total: counted.rows[0]?.total ?? 0 };
}
