/** `verdict bundle --run <id> | --case <id> [--markdown] [--budget N]`: the debug bundle, on stdout. */
import { connect, verdictFailure, type ConnectionFlags } from '../connection';
import { EXIT, usageError } from '../exitCodes';
import type { Context } from './import';

export interface BundleFlags extends ConnectionFlags {
  run?: string;
  case?: string;
  suite?: string;
  attempt?: string;
  platform?: string;
  view?: string;
  page?: string;
  limit?: string;
  markdown?: boolean;
  budget?: string;
}

const whole = (value: string | undefined, name: string) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw usageError(`--${name} takes a whole number, not ${value}`);
  return Number(value);
};

export async function bundleCommand(flags: BundleFlags, context: Context): Promise<number> {
  if (!flags.run && !flags.case) throw usageError('verdict bundle: name --run <runId> or --case <caseId>');
  if (flags.suite && !flags.run) throw usageError('verdict bundle: --suite needs --run');
  if (flags.budget !== undefined && !flags.markdown)
    throw usageError('verdict bundle: --budget goes with --markdown');
  const connection = connect(flags, context.env);
  const query = {
    ...(flags.run ? { runId: flags.run } : {}),
    ...(flags.case ? { caseId: flags.case } : {}),
    ...(flags.suite ? { suiteId: flags.suite } : {}),
    ...(flags.platform ? { project: flags.platform } : {}),
    ...(flags.view ? { view: flags.view as 'full' | 'brief' | 'headline' } : {}),
    ...(whole(flags.attempt, 'attempt') !== undefined ? { attempt: whole(flags.attempt, 'attempt') } : {}),
    ...(whole(flags.page, 'page') !== undefined ? { page: whole(flags.page, 'page') } : {}),
    ...(whole(flags.limit, 'limit') !== undefined ? { limit: whole(flags.limit, 'limit') } : {}),
  };
  try {
    if (flags.markdown) {
      const budget = whole(flags.budget, 'budget');
      context.output.result(
        await connection.client.debugBundleMarkdown({
          ...query,
          ...(budget !== undefined ? { budgetChars: budget } : {}),
        }),
      );
    } else {
      context.output.result(JSON.stringify(await connection.client.debugBundle(query), null, 2));
    }
  } catch (error) {
    throw verdictFailure(error, connection.baseUrl);
  }
  return EXIT.ok;
}
