/**
 * `verdict summary --run <id> [--base <runId> | --base-branch <name>]`: the run's CI summary as Markdown
 * on stdout, for a pull-request comment or `>> "$GITHUB_STEP_SUMMARY"` (the same text the reporters
 * append). A comparison Verdict cannot give is said in the summary; only reading the run can fail it.
 */
import { loadRunSummary, renderRunSummary } from '@verdict/client';
import { runPageUrl } from '@verdict/client/reporting';
import { connect, verdictFailure } from '../connection';
import { EXIT } from '../exitCodes';
import { baseOf, type CompareFlags } from './compare';
import type { Context } from './import';

export async function summaryCommand(flags: Omit<CompareFlags, 'json'>, context: Context): Promise<number> {
  const base = baseOf('summary', flags);
  const runId = flags.run as string;
  const connection = connect(flags, context.env);
  try {
    const input = await loadRunSummary(connection.client, runId, {
      ...base,
      runUrl: runPageUrl(connection.baseUrl, connection.project, runId),
    });
    context.output.result(renderRunSummary(input));
  } catch (error) {
    throw verdictFailure(error, connection.baseUrl);
  }
  return EXIT.ok;
}
