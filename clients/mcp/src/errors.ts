import { VerdictApiError, VerdictConfigError, VerdictNetworkError } from '@verdict/client';

/**
 * The text of a failed tool call: what Verdict answered (status and stable code, then its message, which
 * names the offending field) and what to do next, in words a model can act on. Nothing a tool throws
 * reaches the MCP client as anything but such a text.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof VerdictApiError) {
    const hint = hintFor(error);
    return `Verdict answered ${error.status} ${error.code}: ${error.message}${hint ? `\n${hint}` : ''}`;
  }
  if (error instanceof VerdictNetworkError) {
    return `Verdict could not be reached (${error.reason}): ${error.message}. Check VERDICT_URL and that the server is running, then try again.`;
  }
  if (error instanceof VerdictConfigError) return `Configuration error: ${error.message}`;
  if (error instanceof InputError) return error.message;
  return `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}

function hintFor(error: VerdictApiError): string | null {
  switch (error.code) {
    case 'UNAUTHORIZED':
    case 'AUTH_INVALID_TOKEN':
      return 'The token is missing, invalid, expired or revoked: ask the user for a valid Verdict token.';
    case 'FORBIDDEN':
      return 'The token may not do this: it is not scoped to this project, or its role cannot make changes.';
    case 'RATE_LIMIT_EXCEEDED': {
      const seconds = error.retryAfterMs === undefined ? null : Math.ceil(error.retryAfterMs / 1_000);
      return `The token's rate limit is spent${seconds === null ? '' : `: try again in ${seconds} s`}.`;
    }
    case 'NOT_FOUND':
    case 'TEST_RUN_NOT_FOUND':
    case 'TEST_SUITE_NOT_FOUND':
    case 'TEST_CASE_NOT_FOUND':
      return 'Check the id: list_runs, search_tests, list_quarantine, list_manual_cases and get_manual_run give valid ones.';
    case 'INVALID_ATTEMPT':
      return 'attempt is out of range: omit it for the latest attempt.';
    default:
      return null;
  }
}

/** Input a tool refuses after its schema let it through (a combination of fields); names the field. */
export class InputError extends Error {
  constructor(field: string, message: string) {
    super(`Invalid input: ${field}: ${message}`);
    this.name = 'InputError';
  }
}
