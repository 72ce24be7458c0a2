/**
 * What every reporter does to what its runner gives before it becomes a result item: text clipped to the
 * API's limits (a runner may hold megabytes of output, which must not get a whole batch refused), terminal
 * colours removed, output chunks as text.
 */
import type { ResultItem } from '@verdict/client';

/** The largest sizes the API takes in a result item (see the OpenAPI document's ResultItem). */
export const RESULT_LIMITS = {
  title: 2_000,
  titlePath: 50,
  message: 100_000,
  stack: 200_000,
  snippet: 50_000,
  outputEntry: 100_000,
  outputEntries: 10_000,
  steps: 1_000,
  attachments: 100,
  annotations: 100,
  annotationType: 200,
  annotationDescription: 10_000,
  tags: 100,
  tag: 200,
  project: 200,
  file: 1_024,
  category: 100,
  maxDurationMs: 30 * 86_400_000,
} as const;

/** Keeps the head of a text that is too long, and says how much was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n… [${text.length - max} more characters cut]`;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}

/** Output chunks as the API takes them: each clipped, at most 10,000, undefined when there are none. */
export function clipOutput(entries: readonly string[]): string[] | undefined {
  const kept = entries
    .filter((entry) => entry.length > 0)
    .map((entry) => clip(entry, RESULT_LIMITS.outputEntry));
  if (kept.length === 0) return undefined;
  if (kept.length <= RESULT_LIMITS.outputEntries) return kept;
  const dropped = kept.length - (RESULT_LIMITS.outputEntries - 1);
  return [...kept.slice(0, RESULT_LIMITS.outputEntries - 1), `… [${dropped} more output chunks cut]`];
}

const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
// CSI sequences (colours, cursor moves) and OSC sequences (hyperlinks) that terminals understand.
const ANSI_SEQUENCE = new RegExp(
  `${ESC}\\[[0-?]*[ -/]*[@-~]|${ESC}\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)`,
  'g',
);

/** Removes terminal colour codes: runners write them for consoles, not for a web page. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_SEQUENCE, '');
}

/** A duration the API takes: whole milliseconds from 0 to 30 days. */
export function durationOf(ms: number | undefined | null): number {
  if (ms === undefined || ms === null || !Number.isFinite(ms) || ms < 0) return 0;
  return Math.min(Math.round(ms), RESULT_LIMITS.maxDurationMs);
}

/** Output as text: a runner may hand bytes (a Buffer) for what a test wrote in binary. */
export function outputText(chunk: string | Uint8Array): string {
  return typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk);
}

/** A result's reference on its artifacts: the result's identity, readable, the same on every replay. */
export function resultRefOf(item: Pick<ResultItem, 'file' | 'titlePath' | 'project' | 'attempt'>): string {
  const parts = [item.file, ...item.titlePath].join(' › ');
  return clip(`${item.project ? `[${item.project}] ` : ''}${parts} #${item.attempt}`, 2_000);
}

/** Annotations, each `(type, description)` once, in the API's limits. */
export function annotationsOf(
  annotations: readonly { type: string; description?: string | undefined }[],
): ResultItem['annotations'] {
  const distinct = new Map<string, { type: string; description?: string }>();
  for (const { type, description } of annotations) {
    if (type.trim() === '') continue;
    const key = JSON.stringify([type, description ?? null]);
    if (!distinct.has(key)) {
      distinct.set(key, {
        type: clip(type, RESULT_LIMITS.annotationType),
        ...(description === undefined
          ? {}
          : { description: clip(description, RESULT_LIMITS.annotationDescription) }),
      });
    }
  }
  const list = [...distinct.values()].slice(0, RESULT_LIMITS.annotations);
  return list.length > 0 ? list : undefined;
}
