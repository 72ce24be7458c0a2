/**
 * The Markdown document of a debug bundle as sections of lines and code blocks, rendered whole or fitted
 * into a budget of characters (`budgetChars`): sections kept by priority, the first that does not fit
 * whole cut between lines, later ones dropped, and a marker saying how much was left out.
 */
import { cutAt } from './failureWindow';

/** A fenced code block; its fence is longer than any backtick run inside, so content cannot close it. */
export interface CodeBlock {
  fence: string;
  info: string;
  lines: string[];
}

/** A line of Markdown, or a code block kept whole or cut between its lines. */
export type Unit = string | CodeBlock;

export interface Section {
  /** Null for the headline paragraph. */
  title: string | null;
  /** Lower is kept first under a budget. */
  priority: number;
  units: Unit[];
}

export function renderAll(sections: readonly Section[]): string {
  return sections.map(renderSection).join(SECTION_SEPARATOR);
}

const SECTION_SEPARATOR = '\n\n';

export function renderSection(section: Section): string {
  return [...headingLines(section), ...section.units.flatMap(unitLines)].join('\n');
}

export function headingLines(section: Section): string[] {
  return section.title === null ? [] : [`## ${section.title}`, ''];
}

export function unitLines(unit: Unit): string[] {
  return typeof unit === 'string' ? [unit] : [`${unit.fence}${unit.info}`, ...unit.lines, unit.fence];
}

const CUT_NOTE = '_[… section cut to fit budgetChars]_';
/** Below this much room a cut line is not worth showing. */
const MIN_LINE_PART = 24;

const longMarker = (omitted: number) =>
  `… truncated: ${omitted} more characters (raise budgetChars or use as=json)`;
const shortMarker = (omitted: number) => `… truncated: ${omitted} more characters`;

export function fitToBudget(sections: readonly Section[], budget: number): string {
  const full = renderAll(sections);
  if (full.length <= budget) return full;
  const headline = sections.find((section) => section.title === null);
  // The marker's length is reserved with the largest count it can show; the real count is smaller.
  const marker = markerFor(budget, full.length);
  if (marker === undefined) return tinyCut(headline ? renderSection(headline) : full, budget);

  const room = budget - marker(full.length).length - SECTION_SEPARATOR.length;
  const body = keepByPriority(sections, room);
  return `${body}${SECTION_SEPARATOR}${marker(full.length - body.length)}`;
}

/**
 * The worded marker, when the budget leaves room for content beside it: the long one from three times
 * its length, the short one from twice its length; below that, none (a bare ellipsis).
 */
function markerFor(budget: number, fullLength: number): ((omitted: number) => string) | undefined {
  if (budget >= 3 * longMarker(fullLength).length) return longMarker;
  if (budget >= 2 * shortMarker(fullLength).length) return shortMarker;
  return undefined;
}

/** A budget too small for a worded marker: the start of the headline and a bare ellipsis. */
function tinyCut(text: string, budget: number): string {
  return `${cutAt(text, budget - 1)}…`;
}

/** Sections by priority into `room` characters, shown in document order. */
function keepByPriority(sections: readonly Section[], room: number): string {
  const kept = new Map<Section, string>();
  let used = 0;
  for (const section of [...sections].sort((a, b) => a.priority - b.priority)) {
    const separator = kept.size > 0 ? SECTION_SEPARATOR.length : 0;
    const fitted = fitSection(section, room - used - separator);
    if (fitted === undefined) break;
    kept.set(section, fitted.text);
    used += separator + fitted.text.length;
    if (!fitted.complete) break;
  }
  return sections.flatMap((section) => kept.get(section) ?? []).join(SECTION_SEPARATOR);
}

/** A section whole, or cut between lines with a note, or undefined when not even its heading fits. */
function fitSection(section: Section, room: number): { text: string; complete: boolean } | undefined {
  const whole = renderSection(section);
  if (whole.length <= room) return { text: whole, complete: true };
  if (section.title === null) return room > 0 ? { text: cutAt(whole, room), complete: false } : undefined;

  const lines = new LineBudget(room - 1 - CUT_NOTE.length);
  if (!headingLines(section).every((line) => lines.add(line))) return undefined;
  for (const unit of section.units) {
    if (!(typeof unit === 'string' ? addLine(lines, unit) : addCodeBlock(lines, unit))) break;
  }
  return { text: [...lines.taken, CUT_NOTE].join('\n'), complete: false };
}

/** Lines joined by newlines, up to a number of characters. */
class LineBudget {
  readonly taken: string[] = [];
  private used = -1;

  constructor(private readonly room: number) {}

  /** Room left for one more line. */
  get left(): number {
    return this.room - this.used - 1;
  }

  add(line: string): boolean {
    if (line.length > this.left) return false;
    this.taken.push(line);
    this.used += 1 + line.length;
    return true;
  }
}

/** A line whole, else its start with a note, when enough of it fits to be worth reading. Returns "go on". */
function addLine(lines: LineBudget, line: string): boolean {
  if (lines.add(line)) return true;
  addCutLine(lines, line, 0);
  return false;
}

/** A code block whole, else cut between lines and closed. Returns "go on". */
function addCodeBlock(lines: LineBudget, block: CodeBlock): boolean {
  const all = unitLines(block);
  if (all.join('\n').length <= lines.left) {
    all.forEach((line) => lines.add(line));
    return true;
  }
  const closing = 1 + block.fence.length;
  if (lines.left < `${block.fence}${block.info}`.length + 1 + closing + MIN_LINE_PART) return false;
  lines.add(`${block.fence}${block.info}`);
  for (const line of block.lines) {
    if (line.length + 1 + closing <= lines.left) {
      lines.add(line);
      continue;
    }
    addCutLine(lines, line, closing);
    break;
  }
  lines.add(block.fence);
  return false;
}

/** The start of a line that does not fit, marked as cut, keeping `reserve` characters free. */
function addCutLine(lines: LineBudget, line: string, reserve: number): void {
  const suffix = ' [… line cut]';
  const room = lines.left - reserve - suffix.length;
  if (room >= MIN_LINE_PART) lines.add(`${cutAt(line, room)}${suffix}`);
}
