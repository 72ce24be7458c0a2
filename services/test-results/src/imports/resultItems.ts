import { ResultItem } from '@verdict/contracts';
import { ValidationError, safeParseNested } from '@verdict/platform';

/**
 * What both importers share: text clipped to the contract's limits (real reports carry megabytes of logs
 * and stack traces that must not fail a whole import), ANSI colours removed, instants normalised, and a
 * last check that every item satisfies `ResultItem`, so ingest never sees an item it would refuse.
 */

/** The largest sizes `ResultItem` accepts (contracts/src/testResults.ts). */
export const LIMITS = {
  title: 2_000,
  titlePath: 50,
  message: 100_000,
  stack: 200_000,
  snippet: 50_000,
  outputEntry: 100_000,
  outputEntries: 10_000,
  steps: 1_000,
  annotations: 100,
  annotationType: 200,
  annotationDescription: 10_000,
  tags: 100,
  tag: 200,
  project: 200,
  file: 1_024,
} as const;

/** Keeps the head of a text that is too long, and says how much was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n… [${text.length - max} more characters cut]`;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}

/** Output chunks as the contract takes them: each clipped, at most `outputEntries`, none when empty. */
export function clipOutput(entries: readonly string[]): string[] | undefined {
  const kept = entries.filter((entry) => entry.length > 0).map((entry) => clip(entry, LIMITS.outputEntry));
  if (kept.length === 0) return undefined;
  if (kept.length <= LIMITS.outputEntries) return kept;
  const dropped = kept.length - (LIMITS.outputEntries - 1);
  return [...kept.slice(0, LIMITS.outputEntries - 1), `… [${dropped} more output chunks cut]`];
}

export function limitList<T>(items: readonly T[], max: number): T[] {
  return items.slice(0, max);
}

const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
// CSI sequences (colours, cursor moves) and OSC sequences (hyperlinks) that terminals understand.
const ANSI_SEQUENCE = new RegExp(
  `${ESC}\\[[0-?]*[ -/]*[@-~]|${ESC}\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)`,
  'g',
);

/** Removes terminal colour codes: runners write them into messages for consoles, not for a web page. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_SEQUENCE, '');
}

/**
 * An instant as ISO 8601 UTC. Several JUnit writers (jest-junit, Surefire's contemporaries) write local
 * times without an offset; those are read as UTC, the only reading that does not depend on this server.
 */
export function toIsoInstant(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const hasTime = trimmed.includes('T');
  const hasOffset = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(trimmed);
  const millis = Date.parse(hasTime && !hasOffset ? `${trimmed}Z` : trimmed);
  return Number.isNaN(millis) ? undefined : new Date(millis).toISOString();
}

/** Checks every item against the contract, naming the first one that does not fit. */
export function checkResultItems(items: readonly ResultItem[]): ResultItem[] {
  return items.map((item) => {
    const parsed = safeParseNested(ResultItem, item);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(item)'}: ${issue.message}` : 'invalid';
    throw new ValidationError(`The result for ${describe(item)} does not fit a result item (${where})`, {
      file: item.file,
      titlePath: item.titlePath,
      issues: parsed.error.issues.map(({ path, message }) => ({ path: path.join('.'), message })),
    });
  });
}

function describe(item: ResultItem): string {
  return JSON.stringify([item.file, ...item.titlePath].join(' › ').slice(0, 300));
}
