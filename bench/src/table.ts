/** One row of a bench table: our figure next to the baseline measured in the same run. */
export interface BenchRow {
  name: string;
  unit: string;
  ours: number;
  /** Null when the row has no baseline (an absolute target, like resident memory). */
  baseline: number | null;
  /** What the issue asks for, in words. */
  target: string;
  /** Whether the target holds; evaluated by the bench, printed, never asserted in a test. */
  met: boolean;
}

const format = (value: number) =>
  value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(value >= 10 ? 1 : 2);

/** Prints rows as a Markdown table (so it can be pasted into an issue note as it is). */
export function printTable(title: string, rows: BenchRow[]): string {
  const header = ['benchmark', 'ours', 'baseline', 'ratio', 'target', 'met'];
  const lines = rows.map((r) => [
    r.name,
    `${format(r.ours)} ${r.unit}`,
    r.baseline === null ? '—' : `${format(r.baseline)} ${r.unit}`,
    r.baseline === null || r.baseline === 0 ? '—' : `${((r.ours / r.baseline) * 100).toFixed(0)}%`,
    r.target,
    r.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const text = [
    `\n### ${title}\n`,
    row(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...lines.map(row),
    '',
  ].join('\n');
  process.stdout.write(`${text}\n`);
  return text;
}

/** The p-th percentile (0–100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
