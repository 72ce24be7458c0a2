import { errorHeadline, platformsOf, runRows, type RowSpec, type RowTest } from './runRows';

const test = (
  title: string,
  outcome: RowTest['outcome'],
  errorMessage: string | null = null,
  project = 'chromium',
): RowTest => ({
  testCaseId: `id-${title}`,
  title,
  titlePath: ['suite', title],
  project,
  outcome,
  attempts: outcome === 'flaky' ? 2 : 1,
  durationMs: 10,
  errorMessage,
});

const spec = (file: string, tests: RowTest[]): RowSpec => ({
  file,
  durationMs: 10 * tests.length,
  total: tests.length,
  passed: tests.filter((t) => t.outcome === 'passed').length,
  failed: tests.filter((t) => t.outcome === 'failed').length,
  flaky: tests.filter((t) => t.outcome === 'flaky').length,
  skipped: tests.filter((t) => t.outcome === 'skipped').length,
  tests,
});

const specs = [
  spec('tests/cart.spec.ts', [
    test('adds', 'failed', 'Error: expect(received).toBe(expected)\n\nExpected: 2'),
    test('removes', 'failed', '\u001b[31mError: expect(received).toBe(expected)\u001b[39m\nExpected: 0'),
    test('pays', 'flaky', 'TimeoutError: waiting for locator'),
    test('lists', 'passed'),
  ]),
  spec('tests/login.spec.ts', [
    test('logs in', 'failed', 'TimeoutError: page.goto: Timeout 30000ms exceeded', 'firefox'),
    test('logs out', 'skipped'),
  ]),
];

describe('the run page rows', () => {
  it('when a run has failures, then they come first, grouped by the first line of their error, biggest group first', () => {
    const rows = runRows(specs, {}, new Set());
    expect(
      rows
        .slice(0, 6)
        .map((row) => (row.kind === 'test' ? row.test.title : row.kind === 'group' ? row.message : row.kind)),
    ).toEqual([
      'section',
      'Error: expect(received).toBe(expected)',
      'adds',
      'removes',
      'TimeoutError: page.goto: Timeout 30000ms exceeded',
      'logs in',
    ]);
    const sections = rows
      .filter((row) => row.kind === 'section')
      .map((row) => row.kind === 'section' && row.title);
    expect(sections).toEqual(['Failures', 'Flaky', 'Spec files']);
  });

  it('when no file is expanded, then the tree lists the spec files without their tests; an expanded one lists them', () => {
    const collapsed = runRows(specs, {}, new Set()).filter(
      (row) => row.kind === 'file' || row.key.startsWith('file:'),
    );
    expect(collapsed.map((row) => row.kind)).toEqual(['file', 'file']);
    const expanded = runRows(specs, {}, new Set(['tests/login.spec.ts'])).filter((row) =>
      row.key.startsWith('file:tests/login'),
    );
    expect(expanded.map((row) => (row.kind === 'test' ? row.test.title : row.kind))).toEqual([
      'file',
      'logs in',
      'logs out',
    ]);
  });

  it('when filtered by status, platform or text, then only matching tests and the files holding them are listed', () => {
    const failedOnFirefox = runRows(specs, { status: 'failed', platform: 'firefox' }, new Set());
    expect(
      failedOnFirefox
        .filter((row) => row.kind === 'test')
        .map((row) => row.kind === 'test' && row.test.title),
    ).toEqual(['logs in']);
    expect(failedOnFirefox.filter((row) => row.kind === 'file')).toHaveLength(1);
    const byError = runRows(specs, { text: 'locator' }, new Set());
    expect(
      byError.filter((row) => row.kind === 'test').map((row) => row.kind === 'test' && row.test.title),
    ).toEqual(['pays']);
    expect(runRows(specs, { text: 'nothing like this' }, new Set())).toEqual([]);
  });

  it('when an error group is collapsed, then its tests are not listed but its header is', () => {
    const key = 'group:failed:Error: expect(received).toBe(expected)';
    const rows = runRows(specs, { status: 'failed' }, new Set(), new Set([key]));
    expect(rows.some((row) => row.key === key)).toBe(true);
    expect(
      rows.filter((row) => row.kind === 'test').map((row) => row.kind === 'test' && row.test.title),
    ).toEqual(['logs in']);
  });

  it('when an error has colours or leading blank lines, then its headline is its first plain line', () => {
    expect(errorHeadline('\n\n\u001b[2mexpect(\u001b[22mreceived)\nmore')).toBe('expect(received)');
    expect(errorHeadline(null)).toBe('No error message');
  });

  it('when tests ran on several platforms, then the filter offers each once, sorted', () => {
    expect(platformsOf(specs)).toEqual(['chromium', 'firefox']);
  });
});
