/**
 * The test scope's suspect commits (issue 31): on the branch of the run shown, the last run where the test
 * passed, the first where it failed and the skipped runs between, when its latest failure there is new
 * (suspects/query.ts); and their Markdown section.
 */
import type { SuspectCommits, SuspectRun } from '@verdict/contracts';
import { suspectCommits } from '../../suspects/query';
import type { Section } from '../markdownDocument';
import { code, oneLine } from '../markdownText';
import type { BundleSources } from '../sources';

/** @example const suspects = await bundleSuspects(sources, projectId, caseId, run.branch); */
export function bundleSuspects(
  sources: BundleSources,
  projectId: string,
  caseId: string,
  branch: string | null,
): Promise<SuspectCommits> {
  return suspectCommits(sources, projectId, caseId, { branch });
}

function runLine(label: string, run: SuspectRun): string {
  const commit = run.commit
    ? `commit ${code(run.commit.sha)}${run.commit.author ? ` by ${oneLine(run.commit.author)}` : ''}${run.commit.message ? `: ${oneLine(run.commit.message.split('\n')[0] ?? '')}` : ''}`
    : 'no commit sent';
  return `- ${label}: run #${run.counter} (${code(run.runId)}, ${run.startedAt}), ${commit}`;
}

/** "Suspect commits": where the test's latest failing streak began; one line when its latest run did not fail. */
export function suspectsSection(suspects: SuspectCommits | null | undefined): Section[] {
  if (!suspects) return [];
  const on = suspects.branch === null ? 'runs without a branch' : `branch ${code(suspects.branch)}`;
  if (!suspects.firstFail) {
    return [
      {
        title: 'Suspect commits',
        priority: 5,
        units: [`_None: the latest execution on ${on} did not fail._`],
      },
    ];
  }
  const units = [
    suspects.lastPass
      ? runLine('Last passed', suspects.lastPass)
      : `- Last passed: never on ${on} before this failure`,
    ...suspects.between.map((run) => runLine('Skipped it', run)),
    runLine('First failed', suspects.firstFail),
  ];
  const lead = suspects.newFailure
    ? `New failure on ${on}:`
    : `Failing in the last ${suspects.failingRuns} runs on ${on}; it started here:`;
  return [{ title: 'Suspect commits', priority: 5, units: [lead, '', ...units] }];
}
