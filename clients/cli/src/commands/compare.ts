/**
 * `verdict compare --run <id> [--base <runId> | --base-branch <name>] [--json]`: what changed between a
 * run and its base, on stdout (the counts per category, then the items of each); a run without a base
 * says so and still exits 0. `verdict summary` prints the same comparison as Markdown, with the failures.
 */
import { CATEGORY_LABELS, testPageUrl, type RunComparison } from '@verdict/client';
import { runPageUrl } from '@verdict/client/reporting';
import { connect, verdictFailure, type ConnectionFlags } from '../connection';
import { EXIT, usageError } from '../exitCodes';
import type { Context } from './import';

export interface CompareFlags extends ConnectionFlags {
  run?: string;
  base?: string;
  baseBranch?: string;
  json?: boolean;
}

/** The run and its base from the flags; a usage error when they cannot be told. */
export function baseOf(command: string, flags: CompareFlags): { base?: string; baseBranch?: string } {
  if (!flags.run) throw usageError(`verdict ${command}: name the run with --run <runId>`);
  if (flags.base && flags.baseBranch)
    throw usageError(`verdict ${command}: --base or --base-branch, not both`);
  if (flags.base === flags.run) throw usageError(`verdict ${command}: the base is the run itself`);
  return {
    ...(flags.base ? { base: flags.base } : {}),
    ...(flags.baseBranch ? { baseBranch: flags.baseBranch } : {}),
  };
}

const describeRun = (run: RunComparison['run']) =>
  `#${run.counter}${run.branch ? ` on ${run.branch}` : ''}${run.commit ? ` at ${run.commit.sha.slice(0, 7)}` : ''}`;

/** The comparison as plain text for a terminal or a CI log. */
export function comparisonText(comparison: RunComparison, runUrl: string): string {
  if (!comparison.base) {
    return `Run ${describeRun(comparison.run)}: no base to compare with (${comparison.noBaseReason ?? 'none found'}).\n`;
  }
  const width = Math.max(...CATEGORY_LABELS.map(([, , many]) => many.length));
  const lines = [
    `Run ${describeRun(comparison.run)} compared with run ${describeRun(comparison.base)}`,
    ...CATEGORY_LABELS.map(([key, , many]) => `  ${many.padEnd(width)}  ${comparison[key].count}`),
  ];
  for (const [key, , many] of CATEGORY_LABELS) {
    const category = comparison[key];
    if (category.count === 0) continue;
    lines.push('', `${many.charAt(0).toUpperCase()}${many.slice(1)} (${category.count}):`);
    for (const item of category.items) {
      const name = item.titlePath.length > 0 ? item.titlePath.join(' › ') : item.title;
      const platform = item.project ? ` [${item.project}]` : '';
      const durations =
        key === 'slower' && item.durationMs !== null && item.baseDurationMs !== null
          ? ` ${(item.baseDurationMs / 1_000).toFixed(1)} s → ${(item.durationMs / 1_000).toFixed(1)} s`
          : '';
      lines.push(`  ${item.file} › ${name}${platform}${durations}`);
      if (item.signature) lines.push(`      ${item.signature.text} (${item.signature.id})`);
      if (key !== 'removed') lines.push(`      ${testPageUrl(runUrl, item.testCaseId, item.project)}`);
    }
    if (category.count > category.items.length)
      lines.push(`  … and ${category.count - category.items.length} more`);
  }
  return `${lines.join('\n')}\n`;
}

export async function compareCommand(flags: CompareFlags, context: Context): Promise<number> {
  const base = baseOf('compare', flags);
  const runId = flags.run as string;
  const connection = connect(flags, context.env);
  let comparison: RunComparison;
  try {
    comparison = await connection.client.compareRuns(runId, base);
  } catch (error) {
    throw verdictFailure(error, connection.baseUrl);
  }
  if (flags.json) {
    context.output.result(JSON.stringify(comparison, null, 2));
  } else {
    context.output.result(
      comparisonText(comparison, runPageUrl(connection.baseUrl, connection.project, runId)),
    );
  }
  return EXIT.ok;
}
