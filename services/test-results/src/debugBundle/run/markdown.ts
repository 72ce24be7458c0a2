/** The run scope's Markdown: headline, Failing suites, Failing tests, Actions. */
import type { Pagination } from '@verdict/contracts';
import { howItRanLines } from '../howItRan';
import type { Section, Unit } from '../markdownDocument';
import {
  code,
  context,
  errorLine,
  errorText,
  failureCounts,
  itemFacts,
  nextPage,
  pageText,
  sentences,
  statsText,
  testWhere,
  verdictText,
} from '../markdownText';
import type { RunBundle, RunBundleItem } from '../types';

export function runSections(bundle: RunBundle, pagination: Pagination | undefined): Section[] {
  return [
    { title: null, priority: 0, units: [runHeadline(bundle, pagination)] },
    ...gateSection(bundle),
    { title: 'Failing suites', priority: 3, units: failingSuites(bundle) },
    { title: 'Failing tests', priority: 1, units: runFailingTests(bundle, pagination) },
    ...howItRanSection(bundle),
    { title: 'Actions', priority: 2, units: runActions(bundle, pagination) },
  ];
}

/** The headline speaks of the page when the failing tests do not all fit on it. */
function runHeadline(bundle: RunBundle, pagination: Pagination | undefined): string {
  const status = {
    running: 'is running',
    passed: 'passed',
    failed: 'failed',
    interrupted: 'was interrupted',
  };
  const first = bundle.items[0];
  const paged = pagination !== undefined && pagination.total > bundle.items.length;
  const onPage = paged ? ' on this page' : '';
  return sentences([
    `**Run ${code(bundle.runId)} ${status[bundle.runStatus]}**: ${failureCounts(bundle.meta.stats)}`,
    first
      ? `${pagination && pagination.page > 1 ? 'First failure on this page' : 'First failure'}: ${testWhere(first)}${errorText(first.error)}`
      : 'No failing tests',
    `${first ? `Rerun the failing tests${onPage}` : 'Rerun the run'}: ${code(bundle.links.retryCommand)}`,
    context(bundle.meta.stats, bundle.environment),
  ]);
}

/** The quality gate, when the project judged the run by rules (issue 32). */
function gateSection(bundle: RunBundle): Section[] {
  const { gate } = bundle;
  if (!gate || gate.status === 'none') return [];
  if (gate.status === 'pending') {
    return [{ title: 'Quality gate', priority: 2, units: ['Pending: the run has not finished.'] }];
  }
  const shown = (value: number | boolean | string[]) =>
    Array.isArray(value) ? value.join(', ') || 'none' : String(value);
  return [
    {
      title: 'Quality gate',
      priority: 2,
      units: [
        `**${gate.status === 'passed' ? 'Passed' : 'Failed'}** (quarantined failures do not count)`,
        ...gate.rules.map(
          (rule) =>
            `- ${rule.passed ? 'passed' : '**failed**'} ${code(rule.rule)}: ${shown(rule.observed)} against ${shown(rule.threshold)}${
              rule.failures.length > 0
                ? `; broken by ${rule.failures.map((f) => `${code(f.testCaseId)}${f.signatureId ? ` (signature ${code(f.signatureId)})` : ''}`).join(', ')}`
                : ''
            }`,
        ),
      ],
    },
  ];
}

/** The host and runner settings, when the run's start sent them. */
function howItRanSection(bundle: RunBundle): Section[] {
  const lines = howItRanLines(bundle.environment);
  return lines.length > 0
    ? [{ title: 'How it ran', priority: 4, units: lines.map((line) => `- ${line}`) }]
    : [];
}

function failingSuites(bundle: RunBundle): Unit[] {
  if (bundle.suites.length === 0) return ['_None._'];
  return bundle.suites.map(
    (suite) =>
      `- ${code(suite.file)} ${suite.status}: ${statsText(suite.stats)} (suiteId ${code(suite.suiteId)})`,
  );
}

function runFailingTests(bundle: RunBundle, pagination: Pagination | undefined): Unit[] {
  if (bundle.items.length === 0) return ['_None._'];
  const first = pagination ? (pagination.page - 1) * pagination.limit + 1 : 1;
  const page = pagination ? [pageText(pagination, bundle.items.length), ''] : [];
  return [
    ...page,
    ...bundle.items.flatMap((item, index) => [
      `${first + index}. ${testWhere(item)}${alsoFailedIn(item)}`,
      `   ${itemFacts(item)}`,
      ...(item.error ? [`   Error: ${errorLine(item.error)}`] : []),
      ...(verdictText(item) ? [`   ${verdictText(item)}`] : []),
      `   Rerun: ${code(item.retryCommand)}`,
    ]),
  ];
}

function alsoFailedIn(item: RunBundleItem): string {
  return item.alsoFailedIn.length > 0 ? `; also failed in ${item.alsoFailedIn.join(', ')}` : '';
}

function runActions(bundle: RunBundle, pagination: Pagination | undefined): Unit[] {
  const example = bundle.items[0];
  const suite = bundle.suites[0];
  return [
    // With nothing failing, the command reruns every test: say so rather than promise failing ones.
    example
      ? `- Rerun the failing tests of this page: ${code(bundle.links.retryCommand)}`
      : `- Rerun the run: ${code(bundle.links.retryCommand)}`,
    `- Open the run in Verdict: ${bundle.links.uiUrl}`,
    ...(example
      ? [`- Debug one test: ${code(`caseId=${example.caseId}&runId=${bundle.runId}&as=markdown`)}`]
      : []),
    ...(suite
      ? [`- Debug one suite: ${code(`suiteId=${suite.suiteId}&runId=${bundle.runId}&as=markdown`)}`]
      : []),
    ...nextPage(pagination),
  ];
}
