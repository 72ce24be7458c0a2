/**
 * Cases as the API shows them, read from the case list's tables (caseList.ts) with their suite (the suite
 * tree), their people (the user directory), their linked automated tests (the links model) and, for one
 * case, its comments, issues and change history. Every read is scoped to the path's project.
 */
import { keptInstant } from '@verdict/contracts';
import type {
  CaseAttachment,
  CaseContent,
  LinkedTest,
  ManualTestCase,
  ManualTestCaseDetail,
  ManualUser,
} from '@verdict/contracts';
import { numberOfKey } from '../shared/ids';
import { idOfRef, type ManualReadStore } from '../shared/readStore';
import { userJson, userOf, usersByIds } from '../users/userDirectory';
import { caseHistory } from './caseHistory';

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
    testCaseId: string;
    fullTitle: string;
    displayTitle: string;
    linkedAt: string;
    status: string;
    runId: string;
    at: string;
  }[];
}

/** An attachment as a read model keeps it (its event's record, with when it came). */
export interface StoredAttachment {
  id: string;
  fileName: string;
  originalFileName: string;
  fileSize: number;
  mimeType: string;
  blobKey: string;
  stepRef: string | null;
  uploadedAt: string;
}

/**
 * The wide rows of the cases `ids` names, in that order, with their suite, people and linked tests: the
 * second step of a page (a deferred join). The page's ids come first from a narrow query on the sort's
 * index (listCases), so a deep page or a broad filter never drags 50,000 wide rows (steps, custom fields)
 * through the sort. Apart, this statement's text never changes and it is planned once per connection,
 * where the whole join planned for every filter's LIMIT and OFFSET cost about a millisecond a request.
 */
export async function caseRows(store: ManualReadStore, projectId: string, ids: string[]): Promise<CaseRow[]> {
  if (ids.length === 0) return [];
  const { caseList: s, suiteTree, users, links } = store.schemas;
  const { rows } = await store.db.query<CaseRow>(
    `SELECT c.id, c.project_id, c.number, c.case_key, c.revision, c.created_at, c.updated_at, d.content,
      d.attachments, s.name AS suite_name, ${userJson('cu')} AS created_by, ${userJson('mu')} AS last_modified_by,
      coalesce(lt.linked, '[]'::jsonb) AS linked_tests
    FROM unnest($2::text[]) WITH ORDINALITY AS page(id, position)
    JOIN ${s}.cases c ON c.id = page.id AND c.project_id = $1 JOIN ${s}.case_docs d ON d.id = page.id
    LEFT JOIN ${suiteTree}.suites s ON s.id = c.suite_id
    LEFT JOIN ${users}.users cu ON cu.user_id = c.created_by
    LEFT JOIN ${users}.users mu ON mu.user_id = c.last_modified_by
    LEFT JOIN LATERAL (
      SELECT jsonb_agg(jsonb_build_object('_id', l.test_id, 'testCaseId', l.test_case_id, 'fullTitle', l.full_title,
        'displayTitle', l.display_title, 'linkedAt', l.linked_at, 'status', l.last_status,
        'runId', l.last_run_id, 'at', l.last_at) ORDER BY l.linked_at, l.test_id) AS linked
      FROM ${links}.linked_tests l WHERE l.project_id = c.project_id AND l.case_number = c.number
    ) lt ON true
    ORDER BY page.position`,
    [projectId, ids],
    { prepare: true },
  );
  return rows;
}

/** An attachment as answered, with a freshly signed download URL. */
export function attachmentOf(store: ManualReadStore, stored: StoredAttachment): CaseAttachment {
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

export function caseOf(store: ManualReadStore, row: CaseRow): ManualTestCase {
  const c = row.content;
  const linked: LinkedTest[] = row.linked_tests.map((l) => ({
    _id: l._id,
    testCaseId: l.testCaseId,
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

/** The internal id of the case `ref` names (its `_id` or TC-<n>) in the project, or null. */
export const caseIdOf = (store: ManualReadStore, projectId: string, ref: string) =>
  idOfRef(store.db, `${store.schemas.caseList}.cases`, 'TC', projectId, ref);

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
    }>(`SELECT comments, issues FROM ${store.schemas.caseList}.case_docs WHERE id = $1`, [caseId]),
  ]);
  const found = rows[0];
  const row = extra.rows[0];
  if (!found || !row) return null;
  const item = caseOf(store, found);
  const users = await usersByIds(store, [...row.comments.map((c) => c.by), ...row.issues.map((i) => i.by)]);
  const history = await caseHistory(store, caseId, 1, 100);
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
  const { caseList: s, suiteTree } = store.schemas;
  const numbers = caseRefs.map((ref) => numberOfKey('TC', ref)).filter((n): n is number => n !== null);
  const ids = caseRefs.filter((ref) => numberOfKey('TC', ref) === null);
  const { rows } = await store.db.query<{ id: string; number: number; title: string; revision: number }>(
    `WITH RECURSIVE tree AS (
       SELECT id FROM ${suiteTree}.suites WHERE project_id = $1 AND id = ANY($4::text[]) AND NOT deleted
       UNION SELECT s.id FROM ${suiteTree}.suites s JOIN tree ON s.parent_id = tree.id
       WHERE s.project_id = $1 AND NOT s.deleted
     )
     SELECT c.id, c.number, d.content->>'title' AS title, c.revision FROM ${s}.cases c
     JOIN ${s}.case_docs d ON d.id = c.id
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
