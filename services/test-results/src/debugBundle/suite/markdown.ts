/** The suite scope's Markdown: headline, Failing tests (each with Error and Failure window), Actions. */
import type { Pagination } from '@verdict/contracts';
import type { Section, Unit } from '../markdownDocument';
import {
  code,
  context,
  errorLine,
  errorText,
  failureCounts,
  itemFacts,
  nextPage,
  omitted,
  pageText,
  sentences,
  testWhere,
  windowUnits,
} from '../markdownText';
import type { BundleView, SuiteBundle, SuiteBundleItem } from '../types';

export function suiteSections(bundle: SuiteBundle, pagination: Pagination | undefined): Section[] {
  return [
    { title: null, priority: 0, units: [suiteHeadline(bundle)] },
    { title: 'Failing tests', priority: 1, units: suiteFailingTests(bundle, pagination) },
    { title: 'Actions', priority: 2, units: suiteActions(bundle, pagination) },
  ];
}

function suiteHeadline(bundle: SuiteBundle): string {
  const first = bundle.items[0];
  return sentences([
    `**Suite ${code(bundle.spec.file)} ${bundle.suiteStatus}**: ${failureCounts(bundle.spec.stats)}`,
    first ? `First failure: ${testWhere(first)}${errorText(first.error)}` : 'No failing tests',
    `Rerun the file: ${code(bundle.links.retryCommand)}`,
    context(bundle.spec.stats, bundle.environment, `In run ${code(bundle.meta.runId)}: `),
  ]);
}

function suiteFailingTests(bundle: SuiteBundle, pagination: Pagination | undefined): Unit[] {
  if (bundle.items.length === 0) return ['_None._'];
  const first = pagination ? (pagination.page - 1) * pagination.limit + 1 : 1;
  const page = pagination ? [pageText(pagination, bundle.items.length), ''] : [];
  return [
    ...page,
    ...bundle.items.flatMap((item, index) => [
      ...(index > 0 ? [''] : []),
      ...suiteItem(item, first + index, bundle.meta.view),
    ]),
  ];
}

function suiteItem(item: SuiteBundleItem, number: number, view: BundleView): Unit[] {
  return [
    `### ${number}. ${testWhere(item)}`,
    '',
    `${itemFacts(item)}; rerun: ${code(item.retryCommand)}`,
    '',
    '#### Error',
    '',
    item.error ? errorLine(item.error) : '_No error recorded._',
    '',
    '#### Failure window',
    '',
    ...(item.failureWindow === null ? [omitted(view)] : windowUnits(item.failureWindow)),
  ];
}

function suiteActions(bundle: SuiteBundle, pagination: Pagination | undefined): Unit[] {
  const example = bundle.items[0];
  return [
    `- Rerun the file: ${code(bundle.links.retryCommand)}`,
    `- Open the suite in Verdict: ${bundle.links.uiUrl}`,
    ...(example
      ? [`- Debug one test: ${code(`caseId=${example.caseId}&runId=${bundle.meta.runId}&as=markdown`)}`]
      : []),
    ...(bundle.meta.view === 'full' ? [] : [`- Failure windows: ${code('view=full')}`]),
    ...nextPage(pagination),
  ];
}
