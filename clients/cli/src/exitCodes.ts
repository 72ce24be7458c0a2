/** The exit codes of `verdict` (README.md, "Exit codes"). */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** `verdict run`: the wrapped command failed (the CLI exits with the command's own code). */
  commandFailed: 1,
  /** Wrong usage or configuration: an unknown option, no file matched, no VERDICT_URL… */
  usage: 2,
  /** Verdict could not be reached, or refused (401, 403, 404, 409, 429, 5xx). */
  verdict: 3,
} as const;

/** A failure that names its exit code and one line for the user. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);
