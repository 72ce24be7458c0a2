/**
 * Where the CLI sends: `--url`, `--token`, `--project`, else VERDICT_URL, VERDICT_TOKEN, VERDICT_PROJECT.
 * A missing one is a usage error naming the flag and the variable. The client keeps the API's retry rule.
 */
import {
  createVerdictClient,
  VerdictApiError,
  VerdictNetworkError,
  type VerdictClient,
} from '@verdict/client';
import { failureReason, webBaseOf } from '@verdict/client/reporting';
import { CliError, EXIT, usageError } from './exitCodes';

export interface ConnectionFlags {
  url?: string;
  token?: string;
  project?: string;
}

export interface Connection {
  client: VerdictClient;
  baseUrl: string;
  project: string;
}

/**
 * The API's retry rule (429 and 5xx, backoff from 1 s, Retry-After honoured), with 3 attempts within a
 * minute: a CI step learns in seconds that Verdict is down rather than after two minutes of backoff.
 */
export const CLI_RETRY = { maxAttempts: 3, maxElapsedMs: 60_000 } as const;

const pick = (flag: string | undefined, env: NodeJS.ProcessEnv, name: string) => {
  const value = (flag ?? env[name])?.trim();
  return value ? value : undefined;
};

export function connect(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  options: { projectFallback?: string; urlFallback?: string } = {},
): Connection {
  const baseUrl = pick(flags.url, env, 'VERDICT_URL') ?? options.urlFallback;
  const token = pick(flags.token, env, 'VERDICT_TOKEN');
  const project = pick(flags.project, env, 'VERDICT_PROJECT') ?? options.projectFallback;
  const missing = [
    ...(baseUrl ? [] : ['--url (or VERDICT_URL)']),
    ...(token ? [] : ['--token (or VERDICT_TOKEN)']),
    ...(project ? [] : ['--project (or VERDICT_PROJECT)']),
  ];
  if (!baseUrl || !token || !project) throw usageError(`missing ${missing.join(', ')}`);
  try {
    webBaseOf(baseUrl);
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const client = createVerdictClient({
    baseUrl,
    token,
    project,
    userAgent: '@verdict/cli',
    retry: CLI_RETRY,
  });
  return { client, baseUrl, project };
}

/** A failure of a call to Verdict as the CLI ends on it: exit 3 with what Verdict said. */
export function verdictFailure(error: unknown, baseUrl: string): CliError {
  if (error instanceof VerdictApiError || error instanceof VerdictNetworkError) {
    return new CliError(failureReason(error, baseUrl), EXIT.verdict);
  }
  throw error;
}
