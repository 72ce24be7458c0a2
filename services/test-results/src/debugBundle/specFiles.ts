/** The spec files of a run as the debug bundle shows them: each with its stats, status and title. */
import type { Outcome } from '@verdict/contracts';
import type { BundleSources } from './sources';
import type { BundleSpec, BundleStats, BundleSuiteStatus } from './types';

export interface SpecTestRow {
  file: string;
  outcome: Outcome;
  title_path: string[];
}

/** Every test of the run (one row per test and platform) with its file, as the spec stats count them. */
export async function runSpecTests(
  sources: BundleSources,
  runId: string,
  file?: string,
): Promise<SpecTestRow[]> {
  const { rows } = await sources.db.query<SpecTestRow>(
    `SELECT t.file, t.outcome, c.title_path
     FROM ${sources.schemas.runList}.run_tests t
     JOIN ${sources.schemas.caseHistory}.test_cases c ON c.project_id = t.project_id AND c.id = t.test_case_id
     WHERE t.run_id = $1 AND ($2::text IS NULL OR t.file = $2)
     ORDER BY t.file`,
    [runId, file ?? null],
  );
  return rows;
}

/** The run's spec files with their stats, in file order. */
export function specsOf(rows: readonly SpecTestRow[]): BundleSpec[] {
  const byFile = new Map<string, SpecTestRow[]>();
  for (const row of rows) byFile.set(row.file, [...(byFile.get(row.file) ?? []), row]);
  return [...byFile].map(([file, tests]) => {
    const stats = statsOf(tests.map((test) => test.outcome));
    return { suiteId: file, file, title: specTitleOf(file, tests), status: suiteStatusOf(stats), stats };
  });
}

export function statsOf(outcomes: readonly Outcome[]): BundleStats {
  const stats: BundleStats = { total: 0, passed: 0, failed: 0, flaky: 0, skipped: 0 };
  for (const outcome of outcomes) {
    stats.total += 1;
    stats[outcome] += 1;
  }
  return stats;
}

function suiteStatusOf(stats: BundleStats): BundleSuiteStatus {
  if (stats.failed > 0) return 'failed';
  if (stats.flaky > 0) return 'flaky';
  if (stats.total > 0 && stats.skipped === stats.total) return 'skipped';
  return 'passed';
}

/** The single top-level describe all the file's tests sit in, else the file name. */
function specTitleOf(file: string, tests: readonly SpecTestRow[]): string {
  const describes = new Set(
    tests.map((test) => (test.title_path.length > 1 ? test.title_path[0] : undefined)),
  );
  const [only] = describes;
  if (describes.size === 1 && only !== undefined) return only;
  return file.split('/').at(-1) ?? file;
}

/** Never shown in practice (the case ran in the run, so its file has rows); keeps the type total. */
export function emptySpecOf(file: string): BundleSpec {
  const stats = statsOf([]);
  return { suiteId: file, file, title: file.split('/').at(-1) ?? file, status: 'passed', stats };
}
