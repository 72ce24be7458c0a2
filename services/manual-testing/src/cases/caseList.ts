/**
 * The case list: a narrow row per case with the filter and sort columns of spec §4.3 (an index for each
 * sort), the wide document beside it (content, comments, issues, attachments), and a per-project version
 * that list totals are cached against. A project of 50,000 cases lists in milliseconds.
 *
 * Applying an event again changes nothing a reader sees: inserts do nothing on conflict, a revision sets
 * the values its event holds, comments, issues and attachments are added once by id, a removed attachment
 * is left out again (the version it may bump again only makes the next list count afresh).
 */
import {
  PRIORITIES,
  SEVERITIES,
  type CaseContent,
  type ManualCasesQuery,
  type ManualTestCase,
  type ManualTestingEvent,
} from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import { keyOf } from '../shared/ids';
import { manualEvents } from '../shared/manualEvents';
import type { ManualReadStore } from '../shared/readStore';
import { caseOf, caseRows } from './caseDetail';

const severityRank = (value: string): number => SEVERITIES.indexOf(value as never);
const priorityRank = (value: string): number => PRIORITIES.indexOf(value as never);

/** The list's sorts (SORT_COLUMNS below), each with its index key: the sort column, then the number. */
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
    // Tags rarer than the sort's first page: a bitmap of the cases that carry them.
    `CREATE INDEX IF NOT EXISTS cases_by_tags ON ${s}.cases USING gin (tags)`,
    // Bumped once per change of a project's cases: list counts are cached against it (countCases).
    `CREATE TABLE IF NOT EXISTS ${s}.case_versions (project_id text PRIMARY KEY, version bigint NOT NULL)`,
  ];
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
  await tx.query(
    homes.has('btree_gin')
      ? `CREATE INDEX IF NOT EXISTS cases_search_by_project ON ${schema}.cases
         USING gin (project_id, search_text "${trgm}".gin_trgm_ops)`
      : `CREATE INDEX IF NOT EXISTS cases_search ON ${schema}.cases USING gin (search_text "${trgm}".gin_trgm_ops)`,
  );
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

type CaseEvent<T extends ManualTestingEvent['type']> = Extract<ManualTestingEvent, { type: T }>;

async function created(tx: SqlExecutor, s: string, { data: d }: CaseEvent<'manual-case.created'>) {
  await tx.query(
    `INSERT INTO ${s}.cases (id, project_id, number, case_key, title_sort, search_text, suite_id,
       status, severity, severity_rank, priority, priority_rank, type, layer, behavior, automation_status,
       to_be_automated, is_flaky, is_muted, tags, revision, created_by, last_modified_by, created_at,
       updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
       1, $21, $21, $22, $22)
     ON CONFLICT (id) DO NOTHING`,
    [d.caseId, d.projectId, d.number, keyOf('TC', d.number), ...caseColumns(d.content, d.number), d.by, d.at],
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
}

async function revised(tx: SqlExecutor, s: string, { data: d }: CaseEvent<'manual-case.revised'>) {
  const { rows } = await tx.query<{
    number: number;
    content: CaseContent;
    comments: { id: string }[];
    issues: { key: string }[];
  }>(
    `SELECT c.number, d.content, d.comments, d.issues FROM ${s}.case_docs d JOIN ${s}.cases c ON c.id = d.id
     WHERE d.id = $1 FOR UPDATE`,
    [d.caseId],
  );
  const row = rows[0];
  if (!row) return;
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
    [d.caseId, ...caseColumns(content, row.number), d.revision, d.by, d.at],
  );
  await tx.query(
    `UPDATE ${s}.case_docs SET content = $2::text::jsonb, comments = $3::text::jsonb,
       issues = $4::text::jsonb WHERE id = $1`,
    [d.caseId, JSON.stringify(content), JSON.stringify(comments), JSON.stringify(issues)],
  );
}

/** An attachment added (once, by id) or removed: the case's document lists what is left, in order. */
async function attachmentChanged(
  tx: SqlExecutor,
  s: string,
  event: CaseEvent<'manual-case.attachment-added' | 'manual-case.attachment-removed'>,
) {
  const { data: d } = event;
  if (event.type === 'manual-case.attachment-removed') {
    await tx.query(
      `UPDATE ${s}.case_docs SET attachments = coalesce((SELECT jsonb_agg(a ORDER BY n)
         FROM jsonb_array_elements(attachments) WITH ORDINALITY AS kept (a, n) WHERE a->>'id' <> $2), '[]'::jsonb)
       WHERE id = $1`,
      [d.caseId, d.attachment.id],
    );
    return;
  }
  const entry = { ...d.attachment, uploadedAt: d.at, by: d.by };
  await tx.query(
    `UPDATE ${s}.case_docs SET attachments = attachments || jsonb_build_array($2::text::jsonb)
     WHERE id = $1 AND NOT attachments @> jsonb_build_array(jsonb_build_object('id', $3::text))`,
    [d.caseId, JSON.stringify(entry), d.attachment.id],
  );
}

/** A change of the project's cases: the list totals counted before it are stale. */
async function bumpVersion(tx: SqlExecutor, s: string, caseId: string) {
  await tx.query(
    `INSERT INTO ${s}.case_versions (project_id, version) SELECT project_id, 1 FROM ${s}.cases WHERE id = $1
     ON CONFLICT (project_id) DO UPDATE SET version = case_versions.version + 1`,
    [caseId],
  );
}

/** @example createProjector({ db, projections: [caseListProjection('manual_testing_read_case_list'), …], … }); */
export function caseListProjection(name: string): Projection {
  return {
    name,
    // 2: a removed attachment leaves the case's document.
    version: 2,
    canHandle: [
      'manual-case.created',
      'manual-case.revised',
      'manual-case.attachment-added',
      'manual-case.attachment-removed',
    ],
    async setup(tx, schema) {
      for (const statement of tables(schema)) await tx.query(statement);
      await trigramIndex(tx, schema);
    },
    async apply(tx, events, s) {
      for (const { event } of manualEvents(events)) {
        if (event.type === 'manual-case.created') await created(tx, s, event);
        else if (event.type === 'manual-case.revised') await revised(tx, s, event);
        else if (
          event.type === 'manual-case.attachment-added' ||
          event.type === 'manual-case.attachment-removed'
        )
          await attachmentChanged(tx, s, event);
        else continue;
        await bumpVersion(tx, s, event.data.caseId);
      }
    },
  };
}

/** Distinct filters whose totals a replica remembers. */
const MAX_CACHED_COUNTS = 2_000;

/**
 * The number of cases a filter matches. Counting is most of a list's cost on a large project, and lists are
 * read far more often than cases change, so a total is kept until the project's case version moves (the
 * projection bumps it in the transaction of every change). The version is read before counting: a change
 * committed meanwhile leaves the total tagged with the older version, so the next read counts again.
 */
async function countCases(store: ManualReadStore, projectId: string, filter: string, params: unknown[]) {
  const s = store.schemas.caseList;
  const { rows: versions } = await store.db.query<{ version: string }>(
    `SELECT version::text AS version FROM ${s}.case_versions WHERE project_id = $1`,
    [projectId],
    { prepare: true },
  );
  const version = versions[0]?.version ?? '0';
  const key = `${projectId}\u0000${filter}\u0000${JSON.stringify(params)}`;
  const cached = store.counts?.get(key);
  if (cached && cached.version === version) return cached.total;
  const { rows } = await store.db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${s}.cases c WHERE ${filter}`,
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

const EQUAL_FILTERS: [keyof ManualCasesQuery, string][] = [
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

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The WHERE clause of a list query over `c` (the cases), and its parameters ($1 is the project). */
function listFilter(projectId: string, query: ManualCasesQuery): { filter: string; params: unknown[] } {
  const where = ['c.project_id = $1'];
  const params: unknown[] = [projectId];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (query.search !== undefined && query.search !== '') {
    add((n) => `c.search_text LIKE ${n}`, likePattern(query.search.toLowerCase()));
  }
  for (const [name, column] of EQUAL_FILTERS) {
    const value = query[name];
    if (value !== undefined) add((n) => `${column} = ${n}`, value);
  }
  if (query.suiteId === 'null') where.push('c.suite_id IS NULL');
  else if (query.suiteId !== undefined) add((n) => `c.suite_id = ${n}`, query.suiteId);
  if (query.tags !== undefined && query.tags.length > 0) add((n) => `c.tags && ${n}::text[]`, query.tags);
  return { filter: where.join(' AND '), params };
}

/** Spec §4.3: one page of the project's cases, filtered and sorted, with the total that match. */
export async function listCases(
  store: ManualReadStore,
  projectId: string,
  query: ManualCasesQuery,
): Promise<{ items: ManualTestCase[]; total: number }> {
  const { filter, params } = listFilter(projectId, query);
  const order = query.sortOrder === 'desc' ? 'DESC' : 'ASC';
  const sort = SORT_COLUMNS[query.sortBy];
  const orderBy = sort === 'c.number' ? `c.number ${order}` : `${sort} ${order}, c.number ${order}`;
  const offset = (query.page - 1) * query.limit;
  const [{ rows: page }, total] = await Promise.all([
    // Prepared: the text depends on which filters and which sort are used, never on their values.
    store.db.query<{ id: string }>(
      `SELECT c.id FROM ${store.schemas.caseList}.cases c WHERE ${filter} ORDER BY ${orderBy}
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
