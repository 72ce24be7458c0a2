/**
 * Coverage reports as Verdict takes them (`POST …/coverage`): Istanbul's `coverage-summary.json` (c8,
 * nyc, Jest's `json-summary`), lcov's `lcov.info` (c8, nyc, Jest, coverage.py's `lcov`, genhtml's input)
 * and Cobertura XML (coverage.py/pytest-cov's `xml`, gcovr, JaCoCo's converters, c8/nyc `cobertura`). Each
 * report keeps only the metrics its format holds: lcov has no statements, Cobertura no statements nor
 * functions. File paths are made relative to `root` when they are inside it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { CoverageBody } from '@verdict/client';

type Metric = { total: number; covered: number };
type Metrics = Partial<Record<'lines' | 'statements' | 'functions' | 'branches', Metric>>;
type FileCoverage = Metrics & { path: string };

export type CoverageFormat = 'istanbul-summary' | 'lcov' | 'cobertura';

/** The API keeps at most this many files of a report. */
export const MAX_COVERAGE_FILES = 20_000;

export class CoverageFormatError extends Error {}

const METRICS = ['lines', 'statements', 'functions', 'branches'] as const;

function metric(total: unknown, covered: unknown): Metric | undefined {
  const t = Number(total);
  const c = Number(covered);
  if (!Number.isFinite(t) || !Number.isFinite(c) || t < 0 || c < 0) return undefined;
  const whole = Math.round(t);
  return { total: whole, covered: Math.min(Math.round(c), whole) };
}

function add(into: Metrics, from: Metrics): void {
  for (const name of METRICS) {
    const part = from[name];
    if (!part) continue;
    const sum = into[name] ?? { total: 0, covered: 0 };
    into[name] = { total: sum.total + part.total, covered: sum.covered + part.covered };
  }
}

const hasMetric = (metrics: Metrics) => METRICS.some((name) => metrics[name] !== undefined);

/** A path as the report should show it: relative to root when inside it, with forward slashes. */
function displayPath(file: string, root: string): string {
  const absolute = path.resolve(root, file);
  const relative = path.relative(root, absolute);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return (inside ? relative : file).split(path.sep).join('/').slice(0, 1_024);
}

/** Istanbul's json-summary: `{total: {lines, statements, functions, branches}, "<file>": {…}}`. */
export function parseIstanbulSummary(json: unknown, root: string): CoverageBody {
  const report = json as Record<string, Record<string, { total?: unknown; covered?: unknown } | undefined>>;
  if (!report || typeof report !== 'object' || typeof report.total !== 'object') {
    throw new CoverageFormatError('not an Istanbul coverage summary (no "total")');
  }
  const metricsOf = (entry: Record<string, { total?: unknown; covered?: unknown } | undefined>): Metrics => {
    const metrics: Metrics = {};
    for (const name of METRICS) {
      const found = entry[name] ? metric(entry[name]?.total, entry[name]?.covered) : undefined;
      if (found) metrics[name] = found;
    }
    return metrics;
  };
  const files: FileCoverage[] = Object.entries(report)
    .filter(([key]) => key !== 'total')
    .map(([file, entry]) => ({ path: displayPath(file, root), ...metricsOf(entry ?? {}) }))
    .filter(hasMetric);
  return body(metricsOf(report.total), files);
}

/** lcov tracefiles: per `SF:` record, LF/LH, FNF/FNH, BRF/BRH (or counted from DA/FNDA/BRDA lines). */
export function parseLcov(text: string, root: string): CoverageBody {
  const files = new Map<string, Metrics>();
  let current:
    | {
        file: string;
        counts: Record<string, number>;
        da: [number, number];
        fn: [number, number];
        br: [number, number];
      }
    | undefined;
  const end = () => {
    if (!current) return;
    const { counts, da, fn, br } = current;
    const metrics: Metrics = {};
    const lines =
      counts.LF !== undefined
        ? metric(counts.LF, counts.LH ?? 0)
        : da[0] > 0
          ? metric(da[0], da[1])
          : undefined;
    const functions =
      counts.FNF !== undefined
        ? metric(counts.FNF, counts.FNH ?? 0)
        : fn[0] > 0
          ? metric(fn[0], fn[1])
          : undefined;
    const branches =
      counts.BRF !== undefined
        ? metric(counts.BRF, counts.BRH ?? 0)
        : br[0] > 0
          ? metric(br[0], br[1])
          : undefined;
    if (lines) metrics.lines = lines;
    if (functions) metrics.functions = functions;
    if (branches) metrics.branches = branches;
    const key = displayPath(current.file, root);
    const before = files.get(key) ?? {};
    add(before, metrics);
    files.set(key, before);
    current = undefined;
  };
  let sawRecord = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const colon = line.indexOf(':');
    const tag = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1);
    if (tag === 'SF') {
      end();
      sawRecord = true;
      current = { file: value, counts: {}, da: [0, 0], fn: [0, 0], br: [0, 0] };
    } else if (tag === 'end_of_record') end();
    else if (current) {
      if (['LF', 'LH', 'FNF', 'FNH', 'BRF', 'BRH'].includes(tag)) current.counts[tag] = Number(value);
      else if (tag === 'DA') {
        current.da[0] += 1;
        if (Number(value.split(',')[1]) > 0) current.da[1] += 1;
      } else if (tag === 'FNDA') {
        current.fn[0] += 1;
        if (Number(value.split(',')[0]) > 0) current.fn[1] += 1;
      } else if (tag === 'BRDA') {
        current.br[0] += 1;
        const taken = value.split(',')[3];
        if (taken !== undefined && taken !== '-' && Number(taken) > 0) current.br[1] += 1;
      }
    }
  }
  end();
  if (!sawRecord) throw new CoverageFormatError('not an lcov tracefile (no SF: record)');
  const list = [...files].map(([file, metrics]) => ({ path: file, ...metrics })).filter(hasMetric);
  const total: Metrics = {};
  for (const file of list) add(total, file);
  return body(total, list);
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** `condition-coverage="50% (1/2)"` → [1, 2]. */
function conditions(text: unknown): [number, number] | undefined {
  const match = /\((\d+)\/(\d+)\)/.exec(String(text ?? ''));
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/**
 * Cobertura XML: the root's `lines-valid`/`lines-covered` and `branches-valid`/`branches-covered`, and per
 * file (its classes summed, as inner classes share a file) the lines it lists, with their conditions.
 */
export function parseCobertura(xml: string, root: string): CoverageBody {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
  });
  let document: Record<string, unknown>;
  try {
    document = parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    throw new CoverageFormatError(`not XML: ${(error as Error).message}`);
  }
  const coverage = document.coverage as Record<string, unknown> | undefined;
  if (!coverage || typeof coverage !== 'object')
    throw new CoverageFormatError('not Cobertura XML (no <coverage>)');
  const sources = asArray((coverage.sources as { source?: unknown } | undefined)?.source).map(String);
  const files = new Map<string, Metrics>();
  const packages = asArray((coverage.packages as { package?: unknown } | undefined)?.package) as Record<
    string,
    unknown
  >[];
  for (const pkg of packages) {
    const classes = asArray((pkg.classes as { class?: unknown } | undefined)?.class) as Record<
      string,
      unknown
    >[];
    for (const cls of classes) {
      const filename = String(cls.filename ?? '');
      if (filename === '') continue;
      const lines = asArray((cls.lines as { line?: unknown } | undefined)?.line) as Record<string, unknown>[];
      const metrics: Metrics = {};
      let covered = 0;
      const branch: [number, number] = [0, 0];
      for (const line of lines) {
        if (Number(line.hits) > 0) covered += 1;
        const parts = String(line.branch) === 'true' ? conditions(line['condition-coverage']) : undefined;
        if (parts) {
          branch[0] += parts[0];
          branch[1] += parts[1];
        }
      }
      if (lines.length > 0) metrics.lines = { total: lines.length, covered };
      if (branch[1] > 0) metrics.branches = { total: branch[1], covered: branch[0] };
      // Cobertura names files relative to one of its <source> folders.
      const located = sources.map((source) => path.resolve(root, source, filename)).find(Boolean);
      const key = displayPath(located ?? filename, root);
      const before = files.get(key) ?? {};
      add(before, metrics);
      files.set(key, before);
    }
  }
  const list = [...files].map(([file, metrics]) => ({ path: file, ...metrics })).filter(hasMetric);
  const total: Metrics = {};
  const lines = metric(coverage['lines-valid'], coverage['lines-covered']);
  const branches = metric(coverage['branches-valid'], coverage['branches-covered']);
  if (lines) total.lines = lines;
  if (branches && branches.total > 0) total.branches = branches;
  if (!hasMetric(total)) for (const file of list) add(total, file);
  return body(total, list);
}

function body(total: Metrics, files: FileCoverage[]): CoverageBody {
  if (!hasMetric(total))
    throw new CoverageFormatError(
      'the report measures nothing (no lines, statements, functions or branches)',
    );
  const kept = files.slice(0, MAX_COVERAGE_FILES);
  return { ...total, ...(kept.length > 0 ? { files: kept } : {}) } as CoverageBody;
}

/** The format of a report, by its content (a file's name may say nothing: `coverage.xml`, `out.info`). */
export function coverageFormatOf(text: string): CoverageFormat | undefined {
  const start = text.trimStart();
  if (start.startsWith('{')) return 'istanbul-summary';
  if (start.startsWith('<')) return /<coverage[\s>]/.test(start.slice(0, 4_096)) ? 'cobertura' : undefined;
  if (/^(TN:|SF:)/m.test(start.slice(0, 4_096))) return 'lcov';
  return undefined;
}

/**
 * Reads a coverage report of any of the three formats.
 *
 * @example const coverage = await readCoverage('coverage/lcov.info', { root: process.cwd() }); await client.addCoverage(runId, coverage);
 */
export async function readCoverage(file: string, options: { root?: string } = {}): Promise<CoverageBody> {
  const text = await readFile(file, 'utf8');
  const root = options.root ?? process.cwd();
  const format = coverageFormatOf(text);
  const named = (error: unknown): never => {
    throw new CoverageFormatError(`${file}: ${(error as Error).message}`);
  };
  try {
    switch (format) {
      case 'istanbul-summary':
        return parseIstanbulSummary(JSON.parse(text) as unknown, root);
      case 'lcov':
        return parseLcov(text, root);
      case 'cobertura':
        return parseCobertura(text, root);
      default:
        throw new CoverageFormatError(
          'not a coverage report this reads (Istanbul json-summary, lcov, Cobertura XML)',
        );
    }
  } catch (error) {
    return named(error);
  }
}
