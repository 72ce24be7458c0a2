/**
 * The first line of each failed attempt's error (`attempt_errors`): a few percent of attempts, read by the
 * run report. Written with its attempt, so an attempt applied twice writes nothing new.
 */
import type { SqlExecutor } from '@verdict/platform';

/** What this slice reads of a result row (executions' `ResultRow`), named here so the two files do not import each other. */
export interface AttemptRow {
  run_id: string;
  case_id: string;
  platform: string;
  attempt: number;
  project_id: string;
  error_line: string | null;
}

/** The attempt errors table, in schema `s`. */
export function attemptErrorTables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.attempt_errors (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       attempt integer NOT NULL,
       project_id text NOT NULL,
       error_line text NOT NULL,
       PRIMARY KEY (run_id, case_id, platform, attempt)
     )`,
  ];
}

/** Keeps the error line of each failed attempt of the batch (attempt_errors). */
export async function recordErrors(tx: SqlExecutor, s: string, rows: AttemptRow[]): Promise<void> {
  const failed = rows.filter((row) => row.error_line !== null);
  if (failed.length === 0) return;
  const column = <K extends keyof AttemptRow>(key: K) => failed.map((r) => r[key]);
  await tx.query(
    `INSERT INTO ${s}.attempt_errors (run_id, case_id, platform, attempt, project_id, error_line)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[])
     ON CONFLICT DO NOTHING`,
    [
      column('run_id'),
      column('case_id'),
      column('platform'),
      column('attempt'),
      column('project_id'),
      column('error_line'),
    ],
  );
}

/** An error's first non-empty line, colours removed and cut to 500 characters; null without a message. */
export function errorLineOf(message: string | undefined): string | null {
  if (message === undefined) return null;
  // eslint-disable-next-line no-control-regex
  const plain = message.replace(/\u001b\[[0-9;]*m/g, '');
  const line =
    plain
      .split('\n')
      .find((part) => part.trim() !== '')
      ?.trim() ?? '';
  return line === '' ? null : line.slice(0, 500);
}
