import type { ManualCase, ManualCaseList, ManualRun } from '../types';
import { clip, code, count, duration, fitLines, minute, oneLine, table } from './markdown';
import { pageLine } from './runs';

type ListedCase = ManualCaseList[number];
type RunCase = ManualRun['testCases'][number];
type User = { firstName: string; lastName: string; email: string } | null | undefined;
type Pagination = { page: number; limit: number; total: number; hasNext: boolean; hasPrev: boolean };

const person = (user: User) => (user ? `${user.firstName} ${user.lastName}`.trim() || user.email : null);

/** Manual cases as a table. */
export function renderManualCaseList(cases: readonly ListedCase[], pagination: Pagination): string {
  const head = `${pageLine('manual test cases', pagination, cases.length)}.`;
  if (cases.length === 0) return head;
  return [
    head,
    '',
    table(
      ['Key', 'Title', 'Status', 'Priority', 'Severity', 'Type', 'Automation', 'Suite', 'Tags', '_id'],
      cases.map((c) => [
        c.caseId,
        clip(c.title, 200),
        c.classification.status,
        c.classification.priority,
        c.classification.severity,
        c.classification.type,
        c.automation.status,
        c.metadata.suite?.name,
        c.tags.join(', '),
        c._id,
      ]),
    ),
  ].join('\n');
}

/** A text field as indented lines under its label, or nothing when empty. */
function section(label: string, text: string): string[] {
  if (text.trim() === '') return [];
  return ['', `**${label}**`, ...text.trim().split(/\r?\n/)];
}

type ClassicStep = ManualCase['steps']['classic'][number];
type GherkinStep = ManualCase['steps']['gherkin'][number];

function classicLines(steps: readonly ClassicStep[], depth: number, prefix: string): string[] {
  return steps.flatMap((step, index) => {
    const number = `${prefix}${index + 1}`;
    const indent = '   '.repeat(depth);
    return [
      `${indent}${number}. ${oneLine(step.action) || '(no action)'}`,
      ...(step.data.trim() ? [`${indent}   Data: ${oneLine(step.data)}`] : []),
      ...(step.expectedResult.trim() ? [`${indent}   Expected: ${oneLine(step.expectedResult)}`] : []),
      ...classicLines(step.subSteps, depth + 1, `${number}.`),
    ];
  });
}

function gherkinLines(steps: readonly GherkinStep[], depth: number): string[] {
  return steps.flatMap((step) => [
    `${'   '.repeat(depth)}- ${oneLine(step.text)}`,
    ...gherkinLines(step.subSteps, depth + 1),
  ]);
}

/** A manual case in full, within `budget` characters. */
export function renderManualCase(c: ManualCase, budget: number): string {
  const { classification: k, automation: a } = c;
  const steps =
    c.stepFormat === 'Gherkin' ? gherkinLines(c.steps.gherkin, 0) : classicLines(c.steps.classic, 0, '');
  const lines = [
    `## ${c.caseId} ${code(c.title)}`,
    '',
    `_id ${code(c._id)} · status ${k.status} · priority ${k.priority} · severity ${k.severity} · type ${k.type} · layer ${k.layer} · behavior ${k.behavior}`,
    `Automation: ${a.status}${a.toBeAutomated ? ', to be automated' : ''}${a.isFlaky ? ', flagged flaky' : ''}${a.isMuted ? ', muted' : ''}${a.latestAutomatedResult ? `; latest automated result ${a.latestAutomatedResult.status} (run ${a.latestAutomatedResult.runId}, ${minute(a.latestAutomatedResult.at)})` : ''}.`,
    `Suite: ${c.metadata.suite ? `${c.metadata.suite.name} (${c.metadata.suite._id})` : 'none'} · tags: ${c.tags.length > 0 ? c.tags.join(', ') : 'none'} · revision ${c.revision}, updated ${minute(c.updatedAt)}${person(c.metadata.lastModifiedBy) ? ` by ${person(c.metadata.lastModifiedBy)}` : ''}.`,
    ...section('Description', c.description),
    ...section('Preconditions', c.preconditions),
    '',
    `**Steps** (${c.stepFormat})`,
    ...(steps.length > 0 ? steps : ['_None._']),
    ...section('Postconditions', c.postconditions),
    ...(c.linkedTests.length > 0
      ? [
          '',
          '**Linked automated tests**',
          ...c.linkedTests.map(
            (t) =>
              `- ${oneLine(t.fullTitle)}${t.lastResult ? ` (latest ${t.lastResult.status}, run ${t.lastResult.runId})` : ''}`,
          ),
        ]
      : []),
    ...(c.attachments.length > 0
      ? [
          '',
          `**Attachments** (${c.attachments.length})`,
          ...c.attachments.map(
            (f) => `- ${oneLine(f.originalFileName)} (${f.mimeType}, ${f.fileSize} bytes): ${f.blobUrl}`,
          ),
        ]
      : []),
    ...(c.issues.length > 0
      ? ['', `**Linked issues**: ${c.issues.map((issue) => issue.key).join(', ')}`]
      : []),
    ...(c.comments.length > 0
      ? [
          '',
          `**Comments** (latest ${Math.min(5, c.comments.length)} of ${c.comments.length})`,
          ...c.comments
            .slice(-5)
            .map(
              (comment) =>
                `- ${minute(comment.createdAt)} ${person(comment.author) ?? 'someone'}: ${clip(oneLine(comment.text), 500)}`,
            ),
        ]
      : []),
  ];
  return fitLines(lines, budget, (omitted) => `… ${omitted} more lines cut to fit budgetChars=${budget}.`);
}

/** A manual run's progress and one page of its cases. */
export function renderManualRun(
  run: ManualRun,
  options: { page: number; limit: number; result?: string },
): string {
  const p = run.progress;
  const matching = options.result ? run.testCases.filter((c) => c.result === options.result) : run.testCases;
  const start = (options.page - 1) * options.limit;
  const shown = matching.slice(start, start + options.limit);
  const pagination = {
    page: options.page,
    limit: options.limit,
    total: matching.length,
    hasNext: start + options.limit < matching.length,
    hasPrev: options.page > 1,
  };
  return [
    `## ${run.runId} ${code(run.name)}: ${run.status.replace('_', ' ')}`,
    '',
    `_id ${code(run._id)}${run.release ? ` · release ${run.release.releaseId} ${code(run.release.name)}` : ''}${person(run.assignee) ? ` · assigned to ${person(run.assignee)}` : ''} · created ${minute(run.createdAt)}, updated ${minute(run.updatedAt)}.`,
    ...(run.description.trim() ? [clip(oneLine(run.description), 500)] : []),
    `Progress: ${p.completed} of ${count(p.total, 'case')} done (${p.percentComplete}%) — ${p.passed} passed, ${p.failed} failed, ${p.blocked} blocked, ${p.skipped} skipped, ${p.retest} to retest, ${p.untested} untested; pass rate ${p.passRate}%.`,
    '',
    `${pageLine(options.result ? `${options.result} cases` : 'cases', pagination, shown.length)}.`,
    ...(shown.length > 0
      ? [
          '',
          table(
            ['Key', 'Title', 'Result', 'Assignee', 'Time', 'Comment', 'Case changed since', 'Run case id'],
            shown.map((c: RunCase) => [
              c.caseRef.caseId,
              clip(c.title, 200),
              c.result,
              person(c.assignee),
              c.elapsed === null ? null : duration(c.elapsed * 1_000),
              c.comment ? clip(oneLine(c.comment), 120) : null,
              c.caseChangedSince ? 'yes' : 'no',
              c._id,
            ]),
          ),
        ]
      : []),
    '',
    'Next: record_manual_result with runId and a case key records a result.',
  ].join('\n');
}

/** A run case after an update. */
export function renderRunCase(c: RunCase, runId: string): string {
  return `Recorded ${c.result} for ${c.caseRef.caseId} ${code(c.title)} in ${runId}${c.elapsed === null ? '' : ` (${duration(c.elapsed * 1_000)} spent)`}${c.comment ? `, comment: ${clip(oneLine(c.comment), 200)}` : ''}${c.linkedIssues.length > 0 ? `, issues: ${c.linkedIssues.map((issue) => String(issue.key)).join(', ')}` : ''}. ${count(c.history.length, 'update')} in its history.`;
}
