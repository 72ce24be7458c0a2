/**
 * Links between automated tests and manual cases, projected from the test-results topic. A result whose
 * title carries `@TC-12`, whose tags name `TC-12` (with or without `@`), or whose annotations hold
 * `{type: 'case', description: 'TC-12'}` (Playwright's annotation; several keys may be comma-separated)
 * links its test (file + title path) to case TC-12 of the result's project. The link keeps the time it was
 * first seen and the test's latest result, which the case shows as its latest automated outcome.
 *
 * Keyed by case number, not by case id, so that a test may name a case before the case exists (the link
 * shows once it does); kept in its own schema so that it is rebuilt without touching the case tables.
 */
import { parseTestResultsEvent, testCaseIdOf, type ResultItem, keptInstant } from '@verdict/contracts';
import { derivedId, type Projection } from '@verdict/platform';

export const LINKS_READ_MODEL = 'manual_testing_links';

const KEY = /(?:^|[^A-Za-z0-9])@?TC-(\d{1,9})\b/gi;

function numbersIn(text: string, mention: RegExp): number[] {
  return [...text.matchAll(mention)].map((match) => Number(match[1])).filter((n) => n >= 1);
}

/** The case numbers an automated result names: `@TC-n` in its title, its tags, its `case` annotations. */
export function caseNumbersOf(item: Pick<ResultItem, 'titlePath' | 'tags' | 'annotations'>): number[] {
  const found = new Set<number>();
  const inTitle = /@TC-(\d{1,9})\b/gi;
  for (const title of item.titlePath) for (const n of numbersIn(title, inTitle)) found.add(n);
  for (const tag of item.tags ?? []) for (const n of numbersIn(tag, KEY)) found.add(n);
  for (const annotation of item.annotations ?? []) {
    if (annotation.type.trim().toLowerCase() !== 'case' || annotation.description === undefined) continue;
    for (const n of numbersIn(annotation.description, KEY)) found.add(n);
  }
  return [...found].sort((a, b) => a - b);
}

/** Spec §2 `linkedTests`: the test's full title (file and title path) and the title shown. */
export function titlesOf(item: Pick<ResultItem, 'file' | 'titlePath'>) {
  const displayTitle = (item.titlePath.at(-1) ?? '').replace(/\s*@TC-\d+\b/gi, '').trim();
  return { fullTitle: [item.file, ...item.titlePath].join(' › '), displayTitle };
}

/**
 * A cheap look before the full parse: almost no result names a case, and a large run sends tens of
 * thousands of results through here.
 */
function mayNameACase(data: unknown): boolean {
  const item = (data as { item?: { titlePath?: unknown; tags?: unknown; annotations?: unknown } } | null)
    ?.item;
  if (item === undefined) return true;
  return /TC-\d/i.test(JSON.stringify([item.titlePath, item.tags, item.annotations]));
}

/** What a result says of the test: `flaky` when it passed on a retry. */
const statusOf = (item: ResultItem) => (item.status === 'passed' && item.attempt > 0 ? 'flaky' : item.status);

export function linkedTestsProjection(name: string = LINKS_READ_MODEL): Projection {
  return {
    name,
    // 2: test_case_id, the id of the test's page in test results (rebuilt at start from the results).
    version: 2,
    async setup(tx, schema) {
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.linked_tests (
           project_id text NOT NULL, case_number integer NOT NULL, test_id text NOT NULL,
           test_case_id text NOT NULL,
           full_title text NOT NULL, display_title text NOT NULL, linked_at timestamptz NOT NULL,
           last_status text NOT NULL, last_run_id text NOT NULL, last_at timestamptz NOT NULL,
           PRIMARY KEY (project_id, case_number, test_id))`,
      );
    },
    async apply(tx, events, schema) {
      for (const envelope of events) {
        if (envelope.type !== 'test.result-recorded' || envelope.projectId === null) continue;
        if (!mayNameACase(envelope.data)) continue;
        const event = parseTestResultsEvent(envelope);
        if (event.type !== 'test.result-recorded') continue;
        const { item, runId } = event.data;
        const numbers = caseNumbersOf(item);
        if (numbers.length === 0) continue;
        const { fullTitle, displayTitle } = titlesOf(item);
        const testId = derivedId('automated-test', envelope.projectId, item.file, ...item.titlePath);
        const at = keptInstant(item.startedAt);
        for (const number of numbers) {
          await tx.query(
            `INSERT INTO ${schema}.linked_tests AS l (project_id, case_number, test_id, test_case_id,
               full_title, display_title, linked_at, last_status, last_run_id, last_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (project_id, case_number, test_id) DO UPDATE SET
               linked_at = least(l.linked_at, EXCLUDED.linked_at),
               last_status = CASE WHEN EXCLUDED.last_at >= l.last_at THEN EXCLUDED.last_status ELSE l.last_status END,
               last_run_id = CASE WHEN EXCLUDED.last_at >= l.last_at THEN EXCLUDED.last_run_id ELSE l.last_run_id END,
               last_at = greatest(l.last_at, EXCLUDED.last_at)`,
            [
              envelope.projectId,
              number,
              testId,
              testCaseIdOf(item),
              fullTitle,
              displayTitle,
              envelope.occurredAt,
              statusOf(item),
              runId,
              at,
            ],
          );
        }
      }
    },
  };
}
