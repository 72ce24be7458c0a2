/**
 * What the CLI prints. Results go to stdout (a bundle, a run's address); everything else to stderr. On a
 * terminal, progress is one line redrawn in place; in CI (or when stderr is a file) it is plain lines, a
 * few of them, so logs stay readable.
 */
export interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export interface Output {
  /** A result, on stdout. */
  result(text: string): void;
  /** A line for the user, on stderr (`verdict: …`). */
  info(line: string): void;
  /** Progress: redrawn on a terminal; on a log, printed when `milestone` is true. */
  progress(line: string, milestone?: boolean): void;
  /** Ends the progress line (a terminal keeps the last state on screen). */
  done(): void;
}

export function createOutput(streams: Streams, options: { quiet?: boolean; ci?: boolean } = {}): Output {
  const live = Boolean(streams.stderr.isTTY) && !options.ci;
  let drawn = false;
  const clear = () => {
    if (drawn) streams.stderr.write('\r\u001b[K');
    drawn = false;
  };
  return {
    result: (text) => {
      clear();
      streams.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    info: (line) => {
      if (options.quiet) return;
      clear();
      streams.stderr.write(`verdict: ${line}\n`);
    },
    progress: (line, milestone = false) => {
      if (options.quiet) return;
      if (live) {
        const width = (streams.stderr as { columns?: number }).columns ?? 100;
        streams.stderr.write(`\r\u001b[K${line.slice(0, Math.max(20, width - 1))}`);
        drawn = true;
      } else if (milestone) streams.stderr.write(`verdict: ${line}\n`);
    },
    done: () => {
      if (drawn) streams.stderr.write('\n');
      drawn = false;
    },
  };
}

/** `1.2 MB`: bytes as people read them. */
export function bytes(count: number): string {
  if (count < 1_000) return `${count} B`;
  const units = ['kB', 'MB', 'GB'];
  let value = count / 1_000;
  let unit = 0;
  while (value >= 1_000 && unit < units.length - 1) {
    value /= 1_000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
