import type { Quarantine, QuarantineList, RunFailure, RunGate } from '@verdict/client';
import { clip, code, count, minute, oneLine, percent, table } from './markdown';
import { pageLine } from './runs';

/**
 * Quarantines and quality gates (issue 32) as Markdown: a page of quarantines as a table, one quarantine
 * with the signatures it forgives, and a run's gate with each rule and the failures that broke it.
 */

const testName = (quarantine: Pick<Quarantine, 'titlePath' | 'title'>) =>
  oneLine(quarantine.titlePath.length > 0 ? quarantine.titlePath.join(' › ') : quarantine.title);

/** A share from 0 to 1 as a percentage to a tenth: 0.07 is 7%, not 7.000000000000001%. */
const share = (value: number) => Math.round(value * 1_000) / 10;

const platformOf = (project: string | null) => project ?? 'every platform';

/** A page of quarantines, soonest expiry first. */
export function renderQuarantineList(list: QuarantineList, status: string): string {
  const { data: quarantines, pagination } = list;
  const what = `${status === 'all' ? '' : `${status} `}quarantines`;
  // pageLine says "No … match." of an empty page, a sentence of its own.
  if (quarantines.length === 0) return pageLine(what, pagination, 0);
  return [
    `${pageLine(what, pagination, quarantines.length)}, soonest expiry first.`,
    '',
    table(
      [
        'Id',
        'Test',
        'File',
        'Platform',
        'Status',
        'Expires (UTC)',
        'Owner',
        'Reason',
        'Signatures',
        'caseId',
      ],
      quarantines.map((quarantine) => [
        quarantine.id,
        clip(testName(quarantine), 200),
        quarantine.file,
        platformOf(quarantine.project),
        `${quarantine.status}${quarantine.automatic ? ' (automatic)' : ''}`,
        minute(quarantine.expiresAt),
        quarantine.ownerId,
        clip(oneLine(quarantine.reason), 120),
        quarantine.evidence.signatures.map((signature) => signature.id).join(', '),
        quarantine.testCaseId,
      ]),
    ),
    '',
    'A failure of a quarantined test with one of its signatures gets the verdict `quarantined` and does not fail the quality gate; a failure with another signature counts as usual. lift_quarantine ends one.',
  ].join('\n');
}

/** One quarantine as a short section: what it covers, who owns it, until when, what it forgives. */
export function renderQuarantine(quarantine: Quarantine, heading: string): string {
  const { evidence } = quarantine;
  const lines = [
    `${heading} ${code(testName(quarantine))} in ${code(quarantine.file)} (${platformOf(quarantine.project)}): quarantine ${code(quarantine.id)}, ${quarantine.status}.`,
    '',
    `- caseId ${code(quarantine.testCaseId)}; owner ${code(quarantine.ownerId)}; reason: ${oneLine(quarantine.reason)}`,
    `- Expires ${minute(quarantine.expiresAt)}${quarantine.releaseRule ? `, or is lifted after ${count(quarantine.releaseRule.cleanRuns, 'clean run')}` : ''}.`,
    `- Evidence when made: flaky rate ${percent(share(evidence.flakyRate))}, fail rate ${percent(share(evidence.failRate))} over ${count(evidence.runsSeen, 'run')}.`,
  ];
  if (quarantine.endedAt) {
    lines.push(
      `- Ended ${minute(quarantine.endedAt)}${quarantine.endedBy ? ` by ${code(quarantine.endedBy)}` : ''}${quarantine.endReason ? `: ${oneLine(quarantine.endReason)}` : ''}.`,
    );
  }
  lines.push('', `Forgives ${count(evidence.signatures.length, 'error signature')}:`);
  for (const signature of evidence.signatures) {
    lines.push(
      `- ${code(signature.id)} ${code(clip(signature.text, 200))} (${count(signature.occurrences, 'occurrence')})`,
    );
  }
  return lines.join('\n');
}

const RULES: Record<RunGate['rules'][number]['rule'], string> = {
  maxFailedTests: 'failed tests (quarantined ones left out) at most',
  minPassRate: 'share of the tests that ran that passed, flaky or quarantined, at least',
  noNewFailures: 'no failure with the verdict `new`',
  maxFlakyRate: 'share of the tests that ran that were flaky, at most',
  minTestCount: 'tests that ran (not skipped), at least',
  requiredProjects: 'platforms (Playwright projects) that must have run a test',
  maxDurationMs: "the run's wall-clock duration in ms, at most",
};

const RATES = new Set(['minPassRate', 'maxFlakyRate']);

function value(rule: string, value: number | boolean | string[]): string {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  if (typeof value === 'number' && RATES.has(rule)) return percent(share(value));
  return String(value);
}

/**
 * A run's gate: its status, then each rule with its threshold and what was observed, and under a broken
 * rule the failures that broke it, named by `tests` (the run's failures) when they are known.
 */
export function renderGate(gate: RunGate, tests: ReadonlyMap<string, RunFailure>): string {
  switch (gate.status) {
    case 'pending':
      return `The quality gate of run ${code(gate.runId)} is pending: the run (all its shards) has not finished. It is judged once, when it finishes.`;
    case 'none':
      return `Run ${code(gate.runId)} has no quality gate: the project had no gate rules when it finished (an owner or admin sets them; a run is judged by the rules of the moment it finishes).`;
    default:
      break;
  }
  const broken = gate.rules.filter((rule) => !rule.passed);
  const lines = [
    `## Quality gate of run ${code(gate.runId)}: ${gate.status}`,
    '',
    `Judged ${minute(gate.evaluatedAt)}: ${count(gate.rules.length, 'rule')}, ${broken.length} broken. Quarantined failures do not count.`,
    '',
    table(
      ['Rule', 'Meaning', 'Threshold', 'Observed', 'Result'],
      gate.rules.map((rule) => [
        rule.rule,
        RULES[rule.rule],
        value(rule.rule, rule.threshold),
        value(rule.rule, rule.observed),
        rule.passed ? 'passed' : 'failed',
      ]),
    ),
  ];
  for (const rule of broken.filter((one) => one.failures.length > 0)) {
    // A rule lists at most 20 failures; maxFailedTests observes how many there were.
    const listed =
      typeof rule.observed === 'number' && rule.observed > rule.failures.length
        ? `the first ${rule.failures.length} of ${rule.observed}`
        : String(rule.failures.length);
    lines.push('', `### ${rule.rule}: the failures that broke it (${listed})`);
    for (const failure of rule.failures) {
      const test = tests.get(`${failure.testCaseId}\u0000${failure.project ?? ''}`);
      const name = test
        ? `${code(oneLine(test.titlePath.length > 0 ? test.titlePath.join(' › ') : test.title))} in ${code(test.file)}`
        : 'a test';
      const platform = failure.project ? ` [${oneLine(failure.project)}]` : '';
      const signature = failure.signatureId ? `; signatureId ${code(failure.signatureId)}` : '';
      lines.push(
        `- ${name}${platform}; verdict ${failure.verdict}; caseId ${code(failure.testCaseId)}${signature}`,
      );
    }
  }
  lines.push(
    '',
    broken.length > 0
      ? `Next: get_failure_context with runId=${gate.runId} and a caseId shows a failure in depth; quarantine_test forgives a known flaky failure for a while (the gate of a finished run does not change).`
      : 'Every rule passed.',
  );
  return lines.join('\n');
}
