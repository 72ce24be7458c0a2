/**
 * The test scope's Markdown: headline, Error, Failure window, Steps, stdout, stderr, Attempt history,
 * Artifacts, Actions.
 */
import { firstLine, flattenSteps, stripAnsi } from '../failureWindow';
import { howItRanLines, workerText } from '../howItRan';
import type { Section, Unit } from '../markdownDocument';
import {
  code,
  codeBlock,
  codeBlockOfLines,
  duration,
  errorLine,
  locationText,
  omitted,
  onBranch,
  oneLine,
  sentences,
  stepLine,
  testWhere,
  windowUnits,
  verdictText,
} from '../markdownText';
import type { BundleArtifact, TestBundle } from '../types';
import { suspectsSection } from './suspects';

export function testSections(bundle: TestBundle): Section[] {
  const view = bundle.meta.view;
  return [
    { title: null, priority: 0, units: [testHeadline(bundle)] },
    { title: 'Error', priority: 1, units: errorUnits(bundle) },
    { title: 'Failure window', priority: 2, units: windowUnits(bundle.failureWindow) },
    { title: 'Steps', priority: 8, units: bundle.steps ? stepsUnits(bundle.steps) : [omitted(view)] },
    { title: 'stdout', priority: 7, units: bundle.stdout ? outputUnits(bundle.stdout) : [omitted(view)] },
    { title: 'stderr', priority: 6, units: bundle.stderr ? outputUnits(bundle.stderr) : [omitted(view)] },
    { title: 'Attempt history', priority: 4, units: attemptUnits(bundle) },
    { title: 'Artifacts', priority: 5, units: artifactUnits(bundle) },
    { title: 'Actions', priority: 3, units: testActions(bundle) },
    ...suspectsSection(bundle.suspects),
    ...howItRanSection(bundle),
  ];
}

/** The worker of the attempt shown, then the run's host and settings; absent when none were sent. */
function howItRanSection(bundle: TestBundle): Section[] {
  const worker = workerText(bundle.test.worker);
  const lines = [
    ...(worker ? [`Attempt ${bundle.meta.attempt} ran on ${worker}`] : []),
    ...howItRanLines(bundle.environment),
  ];
  return lines.length > 0
    ? [{ title: 'How it ran', priority: 9, units: lines.map((line) => `- ${line}`) }]
    : [];
}

function testHeadline(bundle: TestBundle): string {
  const { test, meta } = bundle;
  const status = test.status === 'timedOut' ? 'TIMED OUT' : test.status.toUpperCase();
  const failed = bundle.failureWindow.failed;
  const latest = meta.latestRun ? ' (the latest run of this test)' : '';
  return sentences([
    `**${status}** ${testWhere(test)}`,
    ...(bundle.error ? [`Error: ${code(firstLine(bundle.error.message))}`] : []),
    ...(verdictText(test) ? [verdictText(test)] : []),
    `Rerun: ${code(bundle.links.retryCommand)}`,
    ...(failed
      ? [
          `Failed step: ${code(oneLine(failed.title))}${failed.location ? ` at ${code(locationText(failed.location))}` : ''}`,
        ]
      : []),
    `Attempt ${meta.attempt} (0-based) of ${meta.attempts}, outcome ${test.outcome}, run ${code(meta.runId)}${latest}${onBranch(bundle.environment)}`,
  ]);
}

function errorUnits(bundle: TestBundle): Unit[] {
  const error = bundle.error;
  if (error === null) return ['_No error: the attempt shown did not fail._'];
  const stack =
    error.stack && stripAnsi(error.stack).trim() !== stripAnsi(error.message).trim() ? error.stack : null;
  return [
    ...(error.location ? [`At ${code(locationText(error.location))}:`, ''] : []),
    codeBlock(error.message),
    ...(error.snippet ? ['', 'Source:', '', codeBlock(error.snippet)] : []),
    ...(stack ? ['', 'Stack:', '', codeBlock(stack)] : []),
  ];
}

function stepsUnits(steps: NonNullable<TestBundle['steps']>): Unit[] {
  if (steps.length === 0) return ['_No steps recorded._'];
  const lines = flattenSteps(steps).map(({ step, depth }) =>
    stepLine({
      title: step.title,
      depth,
      durationMs: step.durationMs,
      location: step.location ?? null,
      error: step.error ? firstLine(step.error.message) : null,
      category: step.category ?? null,
    }),
  );
  return ['✓ passed, ✗ failed; indentation is nesting.', '', codeBlockOfLines(lines)];
}

function outputUnits(chunks: readonly string[]): Unit[] {
  const text = chunks.join('');
  return text.trim().length === 0 ? ['_Empty._'] : [codeBlock(text.replace(/\n$/, ''))];
}

function attemptUnits(bundle: TestBundle): Unit[] {
  if (bundle.attemptHistory.length === 0) return ['_No other attempts._'];
  return bundle.attemptHistory.map(
    (entry) =>
      `- attempt ${entry.attempt}: ${entry.status}, ${duration(entry.durationMs)}${entry.worker ? ` on ${workerText(entry.worker)}` : ''}${entry.error ? `; ${errorLine(entry.error)}` : ''}`,
  );
}

function artifactUnits(bundle: TestBundle): Unit[] {
  const { artifacts } = bundle;
  const kinds = [
    ['Screenshots', artifacts.screenshots, artifacts.totals?.screenshots],
    ['Videos', artifacts.videos, artifacts.totals?.videos],
    ['Traces', artifacts.traces, artifacts.totals?.traces],
    ['Other', artifacts.other, artifacts.totals?.other],
  ] as const;
  const units = kinds.flatMap(([label, list, total]) => artifactGroup(label, list, total));
  return units.length > 0 ? units : ['_None._'];
}

function artifactGroup(label: string, list: readonly BundleArtifact[], total: number | undefined): Unit[] {
  if (list.length === 0) return [];
  const count = total !== undefined && total > list.length ? `${list.length} of ${total}` : `${list.length}`;
  return [
    `- ${label} (${count}):`,
    ...list.map(
      (artifact) =>
        `  - ${code(oneLine(artifact.name))} (${artifact.contentType}): ${artifact.url ?? 'not uploaded'}`,
    ),
  ];
}

function testActions(bundle: TestBundle): Unit[] {
  const { meta, links } = bundle;
  const others = bundle.attemptHistory.map((entry) => code(`attempt=${entry.attempt}`));
  return [
    `- Rerun locally: ${code(links.retryCommand)}`,
    `- Open the test in Verdict: ${links.uiUrl}`,
    ...(links.traceViewerUrl ? [`- Open the trace: ${links.traceViewerUrl}`] : []),
    ...(others.length > 0 ? [`- Other attempts: ${others.join(', ')}`] : []),
    ...(meta.view === 'full' ? [] : [`- Steps and output: ${code('view=full')}`]),
    `- The whole suite: ${code(`suiteId=${bundle.spec.suiteId}&runId=${meta.runId}&as=markdown`)}`,
  ];
}
