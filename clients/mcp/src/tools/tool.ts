import type { VerdictClient } from '@verdict/client';
import { unwrap } from '@verdict/client';
import { z } from 'zod';
import type { TokenAccess } from '../access';

/** What a tool runs with: the client (carrying the caller's token), the project, and the call's signal. */
export interface ToolContext {
  verdict: VerdictClient;
  project: string;
  access: TokenAccess;
  signal?: AbortSignal;
}

/**
 * One tool, defined once for both forms of the server (stdio and Streamable HTTP). `input` is a strict zod
 * object: unknown fields are refused by name, as misspelt ones would otherwise be dropped without a word.
 * `run` answers Markdown, or throws (the server turns any throw into a tool error, never a crash).
 */
export interface VerdictTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** Changes something in Verdict: listed only to a token whose role may make changes. */
  writes: boolean;
  /** Calling twice with the same input leaves Verdict as calling once does. */
  idempotent: boolean;
  run(input: z.output<S>, context: ToolContext): Promise<string>;
}

/** Keeps the tool's input type for `run`, then erases it so tools of every input fit one list. */
export function defineTool<S extends z.ZodType>(tool: VerdictTool<S>): VerdictTool {
  return tool as unknown as VerdictTool;
}

/** The call options of a client helper for this tool call. */
export function callOf(context: ToolContext): { signal?: AbortSignal } {
  return context.signal ? { signal: context.signal } : {};
}

/** The `data` of an openapi-fetch answer, or its error thrown as a VerdictApiError. */
export function dataOf<T>(result: { data?: { data: T }; error?: unknown; response: Response }): T {
  return unwrap(result).data;
}

// ——— input pieces shared by tools ———

/** An id as the API gives it (run, test case, manual case…). */
export const Id = (what: string) =>
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(500, { error: 'must be at most 500 characters' })
    .describe(what);

export const Page = z
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .default(1)
  .describe('Page of results, from 1 (default 1)');

export const Limit = (fallback: number, max: number, what = 'items') =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .describe(`How many ${what} to return (1 to ${max}, default ${fallback})`);

export const BudgetChars = (fallback: number) =>
  z
    .number()
    .int()
    .min(500)
    .max(128_000)
    .default(fallback)
    .describe(
      `Largest answer in characters (500 to 128000, default ${fallback}). When the whole answer is larger, detail is dropped first and every item is still named when it can be; raise it for more detail.`,
    );

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A day (`2026-03-01`) or an instant (`2026-03-01T12:00:00Z`). */
export const DayOrInstant = (what: string) =>
  z
    .string()
    .refine((value) => (ISO_DATE.test(value) || /T/.test(value)) && !Number.isNaN(Date.parse(value)), {
      error: 'must be an ISO 8601 date (2026-03-01) or date-time (2026-03-01T12:00:00Z)',
    })
    .describe(what);

/** The start of a day, or the instant given, as an RFC 3339 UTC timestamp. */
export function startOf(value: string): string {
  return ISO_DATE.test(value) ? `${value}T00:00:00.000Z` : new Date(value).toISOString();
}

/** The end of a day (inclusive), or the instant given, as an RFC 3339 UTC timestamp. */
export function endOf(value: string): string {
  return ISO_DATE.test(value) ? `${value}T23:59:59.999Z` : new Date(value).toISOString();
}

/** A list the API takes comma-separated. */
export const TextList = (what: string) =>
  z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(200)
        .refine((v) => !v.includes(','), { error: 'must not contain a comma' }),
    )
    .min(1)
    .max(50)
    .describe(what);
