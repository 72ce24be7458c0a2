/**
 * The signature of a failed attempt's error: what stays the same when the same fault fails a test again.
 * The message is normalised (the numbers, ids, times, durations, ports and paths that change from run to
 * run become placeholders; HTTP status codes stay, so 500 and 503 differ) and joined with the first stack
 * frame in the project's own files, as file and function without line numbers. Every service that groups
 * errors computes it with this one function, so a signature id means the same thing everywhere (the
 * reporters too, which is why this module imports nothing but node:crypto: it is bundled into them).
 */
import { createHash } from 'node:crypto';

/** Bumped whenever the normalisation changes: read models keyed by signature rebuild on a new version. */
export const ERROR_SIGNATURE_VERSION = 1;

/** Where an error was thrown: a file of the project and its function (null for an anonymous frame). */
export interface ErrorFrame {
  /** The frame's file, relative where it can be told (the test's own file, or its last two segments). */
  file: string;
  function: string | null;
}

/** An error's signature; the schema the API shows it with is errorSignatureSchemas.ts. */
export interface ErrorSignature {
  /** 12 hexadecimal characters, stable across releases with the same ERROR_SIGNATURE_VERSION. */
  id: string;
  /** The normalised message: at most four lines, placeholders such as <n>, <duration>, <path>. */
  message: string;
  frame: ErrorFrame | null;
  /** One line for people: the message's first line and where it was thrown. */
  text: string;
}

export interface SignatureInput {
  message: string;
  stack?: string | null;
  /** The error's location as the runner reported it: the frame when the stack names none of the project's files. */
  location?: { file: string } | null;
  /** The test's file as sent with the result (e.g. `tests/cart.spec.ts`): frames in it are named by it. */
  testFile?: string | null;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const MAX_LINES = 4;
const MAX_MESSAGE = 500;

/** The error's signature. Pure: the same input gives the same signature on every machine. */
export function errorSignature(input: SignatureInput): ErrorSignature {
  const message = normaliseMessage(input.message);
  const frame = ownFrame(input.stack ?? '', input.testFile ?? null) ?? locationFrame(input);
  const id = createHash('sha256')
    .update(
      `${ERROR_SIGNATURE_VERSION}\u0000${message}\u0000${frame?.file ?? ''}\u0000${frame?.function ?? ''}`,
    )
    .digest('hex')
    .slice(0, 12);
  return { id, message, frame, text: readable(message, frame) };
}

function readable(message: string, frame: ErrorFrame | null): string {
  const first = message.split('\n')[0] ?? '';
  if (frame === null) return first;
  return `${first} at ${frame.function === null ? frame.file : `${frame.function} (${frame.file})`}`;
}

/** The lines of the message before its stack and call log, placeholders put in. */
export function normaliseMessage(raw: string): string {
  const lines: string[] = [];
  for (const line of raw.replace(ANSI, '').split(/\r?\n/)) {
    const trimmed = line.trim();
    if (/^(Call log:|Stack:|Traceback \(most recent call last\):|goroutine \d+ \[)/.test(trimmed)) break;
    if (isFrameLine(trimmed) || /^(>\s*)?\d+\s+\||^\|\s*\^/.test(trimmed)) break;
    if (trimmed === '') continue;
    lines.push(trimmed.replace(/\s+/g, ' '));
    if (lines.length === MAX_LINES) break;
  }
  // A number of 100-599 is an HTTP status only where the message speaks of HTTP; there it stays.
  const joined = lines.join(' ');
  const keepStatus =
    /\b(status|statusCode|https?|response)\b/i.test(joined) ||
    /\b(GET|POST|PUT|PATCH|DELETE|HEAD)\b/.test(joined);
  return lines
    .map((line) => placeholders(line, keepStatus))
    .join('\n')
    .slice(0, MAX_MESSAGE);
}

const REPLACEMENTS: [RegExp, string | ((match: string) => string)][] = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>'],
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s/'"`)<>]+/gi, (url) => url.replace(/:\d{2,5}$/, ':<port>')],
  [/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, (ip) => (ip.includes(':') ? '<ip>:<port>' : '<ip>')],
  [/\blocalhost:\d{2,5}\b/gi, 'localhost:<port>'],
  // A file path: under a root that holds checkouts and temp files, or ending in an extension. An API path
  // such as /api/carts/<uuid> stays: it says which endpoint failed.
  [
    /(^|[\s'"`(=[,])(?:file:\/\/)?(?:[A-Za-z]:\\|~\/|\/(?=(?:tmp|var|home|Users|usr|opt|root|work|builds|runner|github|private|mnt|srv|app|workspace|data)\/))[^\s'"`()[\],:]*/g,
    '$1<path>',
  ],
  [/(^|[\s'"`(=[,])\/(?!\/)[^\s'"`()[\],:]*\.[A-Za-z][\w]{0,5}\b/g, '$1<path>'],
  [/:\d+:\d+\b/g, ':<line>:<col>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b/gi, '<duration>'],
];

function placeholders(line: string, keepStatus: boolean): string {
  let out = line;
  for (const [pattern, replacement] of REPLACEMENTS) {
    out =
      typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out.replace(/(?<!\w)\d+(?:\.\d+)?(?!\w)/g, (n) => (keepStatus && /^[1-5]\d\d$/.test(n) ? n : '<n>'));
}

// --- frames --------------------------------------------------------------------------------------------

interface RawFrame {
  path: string;
  fn: string | null;
}

function isFrameLine(line: string): boolean {
  return (
    /^at\s+\S.*(?::\d+(?::\d+)?\)?|\((?:native|<anonymous>|Native Method|Unknown Source)\))$/.test(line) ||
    /^File ".+", line \d+/.test(line) ||
    /^\S+\.(?:py|go):\d+: in /.test(line) ||
    /^[\w./-]+\.go:\d+ \+0x/.test(line)
  );
}

/** Frames of a JavaScript, Java, Python or Go stack trace, outermost last. */
function framesOf(stack: string): RawFrame[] {
  const frames: RawFrame[] = [];
  const lines = stack.replace(ANSI, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    let m: RegExpMatchArray | null;
    if ((m = /^at (?:(.+?) \((.+?)\)|(.+))$/.exec(line))) {
      const where = m[2] ?? m[3] ?? '';
      const java = /^(.+?)\((.+?)(?::\d+)?\)$/.exec(line.slice(3));
      if (java && !where.includes('/') && !where.includes('\\')) {
        // Java: `at com.example.CartTest.discount(CartTest.java:25)`
        frames.push({ path: java[2] ?? '', fn: java[1] ?? null });
      } else {
        frames.push({ path: where.replace(/:\d+(?::\d+)?$/, ''), fn: m[1] ? cleanFunction(m[1]) : null });
      }
    } else if ((m = /^File "(.+)", line \d+(?:, in (.+))?$/.exec(line))) {
      frames.push({ path: m[1] ?? '', fn: m[2] ?? null });
    } else if ((m = /^(\S+\.py):\d+: in (\S+)/.exec(line))) {
      frames.push({ path: m[1] ?? '', fn: m[2] ?? null });
    } else if ((m = /^(\S+\.py):\d+: \w+$/.exec(line))) {
      // pytest's short form names the failing line's file and the exception: `test_cart.py:3: AssertionError`
      frames.push({ path: m[1] ?? '', fn: null });
    } else if ((m = /^(\S+\.go):\d+(?: \+0x[0-9a-f]+)?$/.exec(line))) {
      // Go: the function is on the line before its file, `pkg.Func(args)`.
      const previous = (lines[i - 1] ?? '').trim().replace(/\([^()]*\)$/, '');
      frames.push({ path: m[1] ?? '', fn: previous === '' ? null : previous });
    } else if ((m = /^(\S+_test\.go):\d+: /.exec(line))) {
      frames.push({ path: m[1] ?? '', fn: null });
    }
  }
  return frames;
}

function cleanFunction(fn: string): string | null {
  const name = fn.replace(/^(async|new)\s+/, '').trim();
  return name === '' || name === '<anonymous>' ? null : name;
}

const FOREIGN = [
  /node_modules/,
  /^node:/,
  /^internal\//,
  /<anonymous>/,
  /site-packages|dist-packages|\/lib\/python\d/,
  /[\\/]_pytest[\\/]|[\\/]pluggy[\\/]/,
  /^\/usr\/local\/go\/|^runtime\/|^testing\/|[\\/]go[\\/]src[\\/](runtime|testing)[\\/]/,
  /^(Native Method|Unknown Source)$/,
];
const FOREIGN_JAVA =
  /^(java|javax|jdk|sun|org\.junit|junit|org\.opentest4j|org\.apache\.maven|org\.testng)\./;
const FOREIGN_GO = /^(runtime|testing|panic)[.(]/;

function isOwn(frame: RawFrame): boolean {
  if (frame.path === '' || FOREIGN.some((pattern) => pattern.test(frame.path))) return false;
  if (frame.fn !== null && (FOREIGN_JAVA.test(frame.fn) || FOREIGN_GO.test(frame.fn))) return false;
  return true;
}

function ownFrame(stack: string, testFile: string | null): ErrorFrame | null {
  const frame = framesOf(stack).find(isOwn);
  if (frame === undefined) return null;
  return { file: relativeFile(frame.path, testFile), function: frame.fn };
}

function locationFrame(input: SignatureInput): ErrorFrame | null {
  if (!input.location?.file) return null;
  return { file: relativeFile(input.location.file, input.testFile ?? null), function: null };
}

/** A path as the same on every machine: the test's own file when it ends with it, else its last two segments. */
function relativeFile(path: string, testFile: string | null): string {
  const clean = path.replace(/^file:\/\//, '').replace(/\\/g, '/');
  if (testFile) {
    const own = testFile.replace(/\\/g, '/').replace(/^\.\//, '');
    if (clean === own || clean.endsWith(`/${own}`)) return own;
  }
  return clean.split('/').filter(Boolean).slice(-2).join('/');
}
