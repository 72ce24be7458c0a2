/**
 * The CI summary of a run as Markdown, for a pull-request comment or `$GITHUB_STEP_SUMMARY`: the counts,
 * each failure with its verdict and error signature, the comparison with the base and links into the web
 * app. Pure: it renders what was read (summary/load.ts) and never calls Verdict. The CLI's `verdict
 * summary`, the reporters and the MCP server render the same text.
 */
import type { RunComparison, RunDetail, RunFailure } from '../types';

export interface RunSummaryInput {
  /** The run, read with `include=failures` (without it, failures are listed without verdicts). */
  run: RunDetail;
  /** The comparison with the base; null when it could not be read (`comparisonProblem` says why). */
  comparison: RunComparison | null;
  comparisonProblem?: string;
  /** The run's page in the web app (`/projects/{projectId}/runs/{runId}`, as the debug bundle's `links.uiUrl`). */
  runUrl: string;
}

export interface RenderOptions {
  /** Failures listed one by one (default 30); the rest are counted. */
  maxFailures?: number;
  /** Items listed per comparison category (default 10). */
  maxItems?: number;
}

type Category = Exclude<keyof RunComparison, 'run' | 'base' | 'baseBranch' | 'noBaseReason' | 'thresholds'>;
type CompareItem = RunComparison['newFailures']['items'][number];

/** The comparison's categories in the order they are told, with how each is named. */
export const CATEGORY_LABELS: readonly (readonly [Category, string, string])[] = [
  ['newFailures', 'new failure', 'new failures'],
  ['fixed', 'fixed', 'fixed'],
  ['stillFailing', 'still failing', 'still failing'],
  ['newlyFlaky', 'newly flaky', 'newly flaky'],
  ['added', 'added', 'added'],
  ['removed', 'removed', 'removed'],
  ['slower', 'slower', 'slower'],
];

const VERDICT_LABELS: Record<RunFailure['verdict'], string> = {
  new: 'new',
  'failing-on-base': 'failing on base',
  'known-flaky': 'known flaky',
  quarantined: 'quarantined',
};

/** Text safe inside a Markdown table cell: one line, pipes escaped. */
export function cell(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/\|/g, '\\|');
}

/** Inline code that survives backticks inside it (CommonMark: a longer fence and spaces). */
export function code(text: string): string {
  const flat = text.replace(/\s*[\r\n]+\s*/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || flat.startsWith(' ') || flat.endsWith(' ') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
const shortSha = (sha: string) => sha.slice(0, 7);

/**
 * The web app's page of a test in a run, in the debug bundle's `links.uiUrl` form.
 *
 * @example testPageUrl('https://verdict.example.com/projects/p1/runs/r1', 'c1', 'firefox') // '…/runs/r1/tests/c1?project=firefox'
 */
export function testPageUrl(runUrl: string, testCaseId: string, project: string | null): string {
  const search = project ? `?${new URLSearchParams({ project }).toString()}` : '';
  return `${runUrl.replace(/\/+$/, '')}/tests/${encodeURIComponent(testCaseId)}${search}`;
}

/**
 * The web app's page of an error group, beside the run's page under its project.
 *
 * @example errorGroupUrl('https://verdict.example.com/projects/p1/runs/r1', '0123456789ab') // '…/projects/p1/errors/0123456789ab'
 */
export function errorGroupUrl(runUrl: string, signatureId: string): string {
  return `${runUrl.replace(/\/+$/, '').replace(/\/runs\/[^/]+$/, '')}/errors/${encodeURIComponent(signatureId)}`;
}

function runName(run: { counter: number; branch: string | null; commit: { sha: string } | null }): string {
  const branch = run.branch ? ` on ${code(run.branch)}` : '';
  const commit = run.commit ? ` at ${code(shortSha(run.commit.sha))}` : '';
  return `run #${run.counter}${branch}${commit}`;
}

function heading(run: RunDetail): string {
  const state = run.status === 'running' ? 'still running' : run.outcome === 'passed' ? 'passed' : 'failed';
  const mark = run.status === 'running' ? '⏳' : run.outcome === 'passed' ? '✅' : '❌';
  const title = run.title ? ` — ${cell(run.title)}` : '';
  return `### ${mark} Verdict run #${run.counter}${title}: ${state}`;
}

function statsTable(run: RunDetail): string[] {
  const { passed, failed, flaky, skipped, total } = run.stats;
  return [
    '| Passed | Failed | Flaky | Skipped | Total |',
    '| ---: | ---: | ---: | ---: | ---: |',
    `| ${passed} | ${failed} | ${flaky} | ${skipped} | ${total} |`,
  ];
}

function failureLines(input: RunSummaryInput, max: number): string[] {
  const { run, runUrl } = input;
  const failures = run.failures;
  if (!failures) {
    return run.stats.failed > 0
      ? [`${plural(run.stats.failed, 'failed test')}; this Verdict gives no verdicts per failure.`]
      : [];
  }
  if (failures.items.length === 0) return ['No failed tests.'];
  const { counts } = failures;
  const base = failures.baseRunId ? '' : ' (no finished run on it yet)';
  const lines = [
    `**${plural(failures.items.length, 'failure')}** against ${code(failures.baseBranch)}${base}: ` +
      `${counts.new} new · ${counts.failingOnBase} failing on base · ${counts.knownFlaky} known flaky · ` +
      `${counts.quarantined} quarantined`,
    '',
    '| Verdict | Test | Error signature |',
    '| --- | --- | --- |',
  ];
  for (const failure of failures.items.slice(0, max)) {
    const name = cell(failure.titlePath.length > 0 ? failure.titlePath.join(' › ') : failure.title);
    const platform = failure.project ? ` [${cell(failure.project)}]` : '';
    const link = testPageUrl(runUrl, failure.testCaseId, failure.project);
    const signature = failure.signature
      ? `${code(failure.signature.text)} <sub>[${failure.signature.id}](${errorGroupUrl(runUrl, failure.signature.id)})</sub>`
      : '—';
    lines.push(
      `| **${VERDICT_LABELS[failure.verdict]}** | [${name}](${link})${platform}<br>${code(failure.file)} | ${signature} |`,
    );
  }
  const rest = failures.items.length - max;
  if (rest > 0) lines.push('', `… and ${plural(rest, 'more failure')}: [open the run](${runUrl}).`);
  return lines;
}

function itemLine(item: CompareItem, category: Category, runUrl: string): string {
  const name = cell(item.titlePath.length > 0 ? item.titlePath.join(' › ') : item.title);
  const platform = item.project ? ` [${cell(item.project)}]` : '';
  const target =
    category === 'removed' ? name : `[${name}](${testPageUrl(runUrl, item.testCaseId, item.project)})`;
  const slower =
    category === 'slower' && item.durationMs !== null && item.baseDurationMs !== null
      ? ` — ${seconds(item.baseDurationMs)} → ${seconds(item.durationMs)}`
      : '';
  const signature = item.signature ? ` — ${code(item.signature.text)}` : '';
  return `- ${target}${platform} ${code(item.file)}${slower}${signature}`;
}

const seconds = (ms: number) => `${(ms / 1_000).toFixed(1)} s`;

/** The comparison in a few lines: the counts, then the items of each category not empty. */
export function renderComparison(
  comparison: RunComparison,
  runUrl: string,
  options: { maxItems?: number; heading?: string } = {},
): string {
  const max = options.maxItems ?? 10;
  const lines = [options.heading ?? '#### Compared with the base', ''];
  if (!comparison.base) {
    lines.push(`No base to compare with: ${comparison.noBaseReason ?? 'none was found'}.`);
    return lines.join('\n');
  }
  lines.push(
    `Run #${comparison.run.counter} compared with ${runName(comparison.base)}: ` +
      CATEGORY_LABELS.map(
        ([key, one, many]) => `${comparison[key].count} ${comparison[key].count === 1 ? one : many}`,
      ).join(' · '),
  );
  for (const [key, , many] of CATEGORY_LABELS) {
    const category = comparison[key];
    if (category.count === 0) continue;
    const label = many.charAt(0).toUpperCase() + many.slice(1);
    lines.push('', `<details><summary>${label} (${category.count})</summary>`, '');
    for (const item of category.items.slice(0, max)) lines.push(itemLine(item, key, runUrl));
    const rest = category.count - Math.min(max, category.items.length);
    if (rest > 0) lines.push(`- … and ${rest} more`);
    lines.push('', '</details>');
  }
  return lines.join('\n');
}

/**
 * The whole summary.
 *
 * @example fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY, renderRunSummary(await loadRunSummary(client, runId, { runUrl })));
 */
export function renderRunSummary(input: RunSummaryInput, options: RenderOptions = {}): string {
  const { run, runUrl } = input;
  const about = [
    `[Open run #${run.counter} in Verdict](${runUrl})`,
    ...(run.branch ? [`branch ${code(run.branch)}`] : []),
    ...(run.commit ? [`commit ${code(shortSha(run.commit.sha))}`] : []),
    ...(run.environment ? [`environment ${code(run.environment)}`] : []),
  ].join(' · ');
  const lines = [heading(run), '', about, '', ...statsTable(run)];
  const failures = failureLines(input, options.maxFailures ?? 30);
  if (failures.length > 0) lines.push('', ...failures);
  lines.push('');
  if (input.comparison) {
    lines.push(renderComparison(input.comparison, runUrl, { maxItems: options.maxItems ?? 10 }));
  } else {
    lines.push(
      '#### Compared with the base',
      '',
      `Not compared: ${input.comparisonProblem ?? 'no comparison'}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
