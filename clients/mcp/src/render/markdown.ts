/**
 * Small Markdown pieces the tools answer with: a model reads Markdown tables and lists better than JSON,
 * and they cost fewer tokens. Every piece is one line unless it says otherwise, and user text (titles,
 * error messages) can never break out of the code span or table cell it is put in.
 */

// CSI sequences (colours) and OSC sequences (hyperlinks) that test runners write into error messages.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Text for one line: terminal colours removed, line breaks and tabs folded into spaces. */
export function oneLine(text: string): string {
  return text
    .replace(ANSI, '')
    .replace(/[\r\n\t\u2028\u2029]+/g, ' ')
    .trim();
}

/** The first non-empty line of a text, colours removed. */
export function firstLine(text: string): string {
  const line = text
    .replace(ANSI, '')
    .split(/\r?\n/)
    .find((part) => part.trim() !== '');
  return (line ?? '').trim();
}

/** At most `max` characters, ending with `…` when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return '…'.slice(0, max);
  return `${text.slice(0, max - 1).trimEnd()}…`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/** Inline code whose content cannot end it early. */
export function code(text: string): string {
  const content = oneLine(text);
  if (content === '') return '""';
  const fence = '`'.repeat(longestBacktickRun(content) + 1);
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}

/** A fenced block whose content cannot close it. */
export function codeBlock(text: string): string {
  const body = text.replace(ANSI, '').replace(/\s+$/, '');
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(body) + 1));
  return `${fence}text\n${body}\n${fence}`;
}

/** A table cell: one line, pipes escaped, empty shown as a dash. */
function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '–';
  return oneLine(String(value)).replace(/\|/g, '\\|');
}

/** A Markdown table. */
export function table(
  headers: readonly string[],
  rows: readonly (readonly (string | number | null | undefined)[])[],
): string {
  return [
    `| ${headers.map(cell).join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** 812 ms, 4.2 s, 3 min 2 s. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

/** An ISO time to the minute, in UTC: `2026-03-01 12:04Z`. */
export function minute(iso: string | null | undefined): string {
  if (!iso) return '–';
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  return `${time.toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

/** `3 tests`, `1 test`. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** A percentage as the API gives it (0 to 100). */
export function percent(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
}

/**
 * Lines joined by newlines, at most `budget` characters: the lines that fit, in order, then the note
 * `cut(omitted)` returns for the lines left out. A document that fits is returned whole.
 *
 * @example fitLines(lines, 4000, (n) => `… ${n} more lines: raise budgetChars`)
 */
export function fitLines(
  lines: readonly string[],
  budget: number,
  cut: (omittedLines: number) => string,
): string {
  const whole = lines.join('\n');
  if (whole.length <= budget) return whole;
  const kept: string[] = [];
  let used = 0;
  for (const [index, line] of lines.entries()) {
    const note = cut(lines.length - index);
    const next = used + (kept.length > 0 ? 1 : 0) + line.length;
    // Room for this line and, after it, the note about the rest.
    if (next + 1 + note.length > budget) {
      return withNote(kept, note, budget);
    }
    kept.push(line);
    used = next;
  }
  return kept.join('\n');
}

function withNote(kept: readonly string[], note: string, budget: number): string {
  const text = [...kept, note].join('\n');
  return text.length <= budget ? text : clip(text, budget);
}
