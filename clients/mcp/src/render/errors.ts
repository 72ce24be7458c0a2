import type { ErrorGroupDetail, ErrorGroupList } from '@verdict/client';
import { clip, code, codeBlock, count, fitLines, minute, table } from './markdown';

/**
 * Error groups (failed attempts grouped by error signature) as Markdown: a page of groups as a table, and
 * one group with the tests and runs it hit. Both cut to a character budget, rows last.
 */

type Group = ErrorGroupList['data'][number];

const frameOf = (group: Pick<Group, 'frame'>) =>
  group.frame ? `${group.frame.file}${group.frame.function ? ` › ${group.frame.function}` : ''}` : '–';

/** The busiest days of a group, oldest first: where a trend starts and peaks, in one line. */
function trend(daily: Group['daily']): string {
  const active = daily.filter((day) => day.count > 0);
  if (active.length === 0) return 'no occurrence in the range';
  return active
    .slice(-14)
    .map((day) => `${day.day.slice(5)}: ${day.count}`)
    .join(', ');
}

export function renderErrorGroups(list: ErrorGroupList, budget: number): string {
  const { data: groups, pagination } = list;
  if (groups.length === 0) {
    return 'No error groups match: no failed attempt in the range (default: the last 30 days) with these filters.';
  }
  const first = (pagination.page - 1) * pagination.limit + 1;
  const lines = [
    `**Error groups ${first}–${first + groups.length - 1} of ${pagination.total}** (failed attempts grouped by error signature: numbers, ids, paths and durations normalised).`,
    '',
    ...table(
      [
        'signatureId',
        'Error',
        'Thrown at',
        'Occurrences',
        'Tests',
        'Runs',
        'Branches',
        'First seen',
        'Last seen',
      ],
      groups.map((group) => [
        group.signatureId,
        code(clip(group.message.split('\n')[0] ?? '', 160)),
        frameOf(group),
        group.occurrences,
        group.testsAffected,
        group.runs,
        group.branches.slice(0, 3).join(', ') + (group.branches.length > 3 ? ', …' : ''),
        minute(group.firstSeenAt),
        minute(group.lastSeenAt),
      ]),
    ).split('\n'),
    '',
    ...(pagination.hasNext ? [`More on page ${pagination.page + 1}.`] : []),
    'Next: get_error_group with a signatureId lists the tests and runs it hit; get_failure_context with a runId and caseId shows one failure in depth.',
  ];
  return fitLines(
    lines,
    budget,
    (omitted) => `… ${count(omitted, 'more line')}: raise budgetChars or lower limit.`,
  );
}

export function renderErrorGroup(group: ErrorGroupDetail, budget: number): string {
  const lines = [
    `**Error group ${code(group.signatureId)}**: ${code(clip(group.signature, 300))}`,
    '',
    `${count(group.occurrences, 'failed attempt')} in ${count(group.testsAffected, 'test')} and ${count(group.runs, 'run')}; first seen ${minute(group.firstSeenAt)}, last seen ${minute(group.lastSeenAt)}; branches: ${group.branches.length > 0 ? group.branches.map(code).join(', ') : '–'}.`,
    `Thrown at: ${frameOf(group)}. Per day: ${trend(group.daily)}.`,
    '',
    'Latest message:',
    codeBlock(clip(group.sampleMessage, 1_500)),
    '',
    `## Tests it hit (${group.tests.length}, most recent first)`,
    ...table(
      ['caseId', 'Test', 'File', 'Platform', 'Occurrences', 'Last seen'],
      group.tests.map((test) => [
        test.testCaseId,
        test.title,
        test.file,
        test.project,
        test.occurrences,
        minute(test.lastSeenAt),
      ]),
    ).split('\n'),
    '',
    `## Runs it hit (${group.hits.length}, newest first)`,
    ...table(
      ['Run', 'runId', 'Branch', 'Environment', 'Commit', 'Started', 'Occurrences'],
      group.hits.map((hit) => [
        `#${hit.counter}`,
        hit.runId,
        hit.branch,
        hit.environment,
        hit.commit ? hit.commit.sha.slice(0, 10) : null,
        minute(hit.startedAt),
        hit.occurrences,
      ]),
    ).split('\n'),
    '',
    'Next: get_failure_context with a runId and caseId above shows one failure in depth; get_test_history with a caseId tells when it started.',
  ];
  return fitLines(lines, budget, (omitted) => `… ${count(omitted, 'more line')}: raise budgetChars.`);
}
