/**
 * The run page's list as rows, computed from the run's spec files: its failures grouped by error, then its
 * flaky tests, then the spec files as a tree. One flat list of rows whatever the run's size, so the page
 * renders only the rows in view (a run of 20,000 results stays responsive). Pure: no React, no I/O.
 */

export interface RowTest {
  testCaseId: string;
  title: string;
  titlePath: string[];
  project: string | null;
  outcome: 'passed' | 'failed' | 'flaky' | 'skipped';
  attempts: number;
  durationMs: number;
  errorMessage: string | null;
}

export interface RowSpec {
  file: string;
  durationMs: number;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  tests: RowTest[];
}

export interface RunFilter {
  status?: 'failed' | 'flaky' | 'passed' | 'skipped' | undefined;
  platform?: string | undefined;
  /** Case-insensitive text in the title, the file or the error. */
  text?: string | undefined;
}

export type Row =
  | { kind: 'section'; key: string; title: string; count: number }
  | { kind: 'group'; key: string; message: string; count: number; section: 'failed' | 'flaky' }
  | { kind: 'test'; key: string; test: RowTest; file: string; depth: 1 | 2 }
  | { kind: 'file'; key: string; spec: RowSpec; shown: number; expanded: boolean };

/** The first line of an error, ANSI colours removed: what tells one failure from another at a glance. */
export function errorHeadline(message: string | null): string {
  if (!message) return 'No error message';
  // eslint-disable-next-line no-control-regex
  const plain = message.replace(/\u001b\[[0-9;]*m/g, '');
  const line = plain.split('\n').find((part) => part.trim() !== '') ?? plain;
  return line.trim().slice(0, 300);
}

export function matches(test: RowTest, file: string, filter: RunFilter): boolean {
  if (filter.status && test.outcome !== filter.status) return false;
  if (filter.platform && (test.project ?? '') !== filter.platform) return false;
  if (filter.text) {
    const needle = filter.text.toLowerCase();
    const haystack = `${test.titlePath.join(' ')}\n${file}\n${test.errorMessage ?? ''}`.toLowerCase();
    if (!haystack.includes(needle)) return false;
  }
  return true;
}

/** Tests of one outcome grouped by error headline, biggest group first, then by headline. */
function groupsOf(
  specs: readonly RowSpec[],
  outcome: 'failed' | 'flaky',
  filter: RunFilter,
): { message: string; tests: { test: RowTest; file: string }[] }[] {
  const groups = new Map<string, { test: RowTest; file: string }[]>();
  for (const spec of specs) {
    for (const test of spec.tests) {
      if (test.outcome !== outcome || !matches(test, spec.file, filter)) continue;
      const message = errorHeadline(test.errorMessage);
      const group = groups.get(message);
      if (group) group.push({ test, file: spec.file });
      else groups.set(message, [{ test, file: spec.file }]);
    }
  }
  return [...groups.entries()]
    .map(([message, tests]) => ({ message, tests }))
    .sort((a, b) => b.tests.length - a.tests.length || a.message.localeCompare(b.message));
}

/**
 * The rows of the run page. `expandedFiles` are the spec files opened in the tree; `collapsedGroups` the
 * error groups closed by the person (all are open at first).
 */
export function runRows(
  specs: readonly RowSpec[],
  filter: RunFilter,
  expandedFiles: ReadonlySet<string>,
  collapsedGroups: ReadonlySet<string> = new Set(),
): Row[] {
  const rows: Row[] = [];
  pushGroupRows(rows, specs, filter, collapsedGroups);
  pushFileRows(rows, specs, filter, expandedFiles);
  return rows;
}

/** The failed and flaky sections: each error group, and its tests unless the group is closed. */
function pushGroupRows(
  rows: Row[],
  specs: readonly RowSpec[],
  filter: RunFilter,
  collapsedGroups: ReadonlySet<string>,
) {
  for (const outcome of ['failed', 'flaky'] as const) {
    if (filter.status && filter.status !== outcome) continue;
    const groups = groupsOf(specs, outcome, filter);
    const count = groups.reduce((sum, group) => sum + group.tests.length, 0);
    if (count === 0) continue;
    rows.push({
      kind: 'section',
      key: `section:${outcome}`,
      title: outcome === 'failed' ? 'Failures' : 'Flaky',
      count,
    });
    for (const group of groups) {
      const key = `group:${outcome}:${group.message}`;
      rows.push({ kind: 'group', key, message: group.message, count: group.tests.length, section: outcome });
      if (collapsedGroups.has(key)) continue;
      for (const { test, file } of group.tests) {
        rows.push({
          kind: 'test',
          key: `${key}:${test.testCaseId}:${test.project ?? ''}`,
          test,
          file,
          depth: 1,
        });
      }
    }
  }
}

/** The spec files section: each file with tests the filter keeps, and those tests when it is open. */
function pushFileRows(
  rows: Row[],
  specs: readonly RowSpec[],
  filter: RunFilter,
  expandedFiles: ReadonlySet<string>,
) {
  const files = specs
    .map((spec) => ({ spec, tests: spec.tests.filter((test) => matches(test, spec.file, filter)) }))
    .filter(({ tests }) => tests.length > 0);
  if (files.length === 0) return;
  rows.push({ kind: 'section', key: 'section:files', title: 'Spec files', count: files.length });
  for (const { spec, tests } of files) {
    const expanded = expandedFiles.has(spec.file);
    rows.push({ kind: 'file', key: `file:${spec.file}`, spec, shown: tests.length, expanded });
    if (!expanded) continue;
    for (const test of tests) {
      rows.push({
        kind: 'test',
        key: `file:${spec.file}:${test.testCaseId}:${test.project ?? ''}`,
        test,
        file: spec.file,
        depth: 2,
      });
    }
  }
}

/** The platforms (Playwright projects) of a run, for its filter. */
export function platformsOf(specs: readonly RowSpec[]): string[] {
  const platforms = new Set<string>();
  for (const spec of specs) for (const test of spec.tests) if (test.project) platforms.add(test.project);
  return [...platforms].sort();
}
