import type { SenderOutcome } from './sender';
import type { ReporterSettings } from './settings';
import { stepSummaryFile, summarizeRun } from './stepSummary';

const outcome = (overrides: Partial<SenderOutcome> = {}): SenderOutcome => ({
  runId: 'r1',
  runUrl: 'https://verdict.example.com/projects/shop/runs/r1',
  accepted: 3,
  duplicates: 0,
  uploaded: 0,
  spooled: 0,
  spoolFile: undefined,
  failure: undefined,
  finished: true,
  ...overrides,
});
const settings = { baseUrl: 'https://verdict.example.com', token: 't', project: 'shop' } as ReporterSettings;

describe('stepSummaryFile', () => {
  it('when GITHUB_STEP_SUMMARY names a file, then that is the file, unless the option is false', () => {
    const env = { GITHUB_STEP_SUMMARY: '/runner/_temp/step_summary_1' };
    expect(stepSummaryFile(undefined, env)).toBe('/runner/_temp/step_summary_1');
    expect(stepSummaryFile(true, env)).toBe('/runner/_temp/step_summary_1');
    expect(stepSummaryFile(false, env)).toBeUndefined();
    expect(stepSummaryFile(undefined, { GITHUB_STEP_SUMMARY: ' ' })).toBeUndefined();
    expect(stepSummaryFile(undefined, {})).toBeUndefined();
  });
});

describe('summarizeRun', () => {
  it('when the run did not finish in Verdict, then one line says the summary was not written, and nothing is sent', async () => {
    const lines: string[] = [];
    for (const result of [outcome({ finished: false }), outcome({ runId: undefined, runUrl: undefined })]) {
      await summarizeRun({
        githubSummary: undefined,
        settings,
        outcome: result,
        userAgent: 'test',
        log: (line) => lines.push(line),
        env: { GITHUB_STEP_SUMMARY: '/tmp/summary.md' },
      });
    }
    expect(lines).toEqual(
      Array(2).fill('summary not written to /tmp/summary.md: the run was not finished in Verdict'),
    );
  });

  it('when GITHUB_STEP_SUMMARY is not set or the option is off, then it says nothing at all', async () => {
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    await summarizeRun({
      githubSummary: undefined,
      settings,
      outcome: outcome(),
      userAgent: 'test',
      log,
      env: {},
    });
    await summarizeRun({
      githubSummary: false,
      settings,
      outcome: outcome(),
      userAgent: 'test',
      log,
      env: { GITHUB_STEP_SUMMARY: '/tmp/summary.md' },
    });
    expect(lines).toEqual([]);
  });
});
