import { DEBUG_BUNDLE_ID_MAX_LENGTH } from '@verdict/contracts';
import { ValidationError, storableText } from '@verdict/platform';
import { BundleFormat, BundleView } from './types';

/**
 * The query of GET /{projectId}/debug-bundle (spec §4.2): scope selection and the ten rejections (the
 * attempt check is the test scope's, test/attempt.ts). Pure: no storage, no HTTP.
 *
 * Decisions where the spec is silent:
 * - Unknown parameters are ignored. The spec enumerates what is rejected "instead of being ignored", and
 *   only the retired `format`, `detail`, `maxLength` are named, so anything else keeps the lenient default
 *   of the other endpoints. Names are case-sensitive (`RunId` is unknown). Rule 8 still applies to them:
 *   "any parameter sent more than once".
 * - An empty value (`runId=`) counts as sent, and is invalid for every parameter: an empty id can only be
 *   a client bug, and treating it as missing would hide that bug behind a confusing rule-1 answer.
 * - Numbers are plain decimal digits (`007` is 7); signs, decimals, exponents and spaces are rejected.
 * - Ids are opaque, non-empty and at most 512 characters; they are not trimmed.
 * - All violations are reported at once, in one 400 whose message joins "parameter: rule" parts with
 *   "; " and whose details list `{ parameter, rule, message }` (`rule` is the number in spec §4.2's
 *   list, or null for the checks the list does not number: attempt, empty or overlong ids).
 * - Each rule is checked on its own words: `view=bogus` at run scope breaks rules 3 and 4, `page=0` at
 *   test scope breaks rules 6 and 10. A parameter sent twice is reported under rule 8 only, since its
 *   value cannot be read.
 * - With caseId, suiteId is not needed (test scope wins); it is still subject to rule 2 and is otherwise
 *   not used.
 * - `project` (not in the spec; a platform, as results name it) picks which platform's attempts the test
 *   scope shows, since a test that ran on two platforms in one run has attempts on each. It requires
 *   caseId: the run and suite scopes list every failing platform as its own item.
 */

export const DEBUG_BUNDLE_DEFAULTS = { page: 1, limit: 10, view: 'full', as: 'json' } as const;
export const DEBUG_BUNDLE_LIMITS = {
  page: { min: 1, max: 1_000_000 },
  limit: { min: 1, max: 50 },
  budgetChars: { min: 1, max: 128_000 },
  idLength: DEBUG_BUNDLE_ID_MAX_LENGTH,
} as const;

/** Spec §9.2: the context endpoint's parameters, and what replaced each. */
const RETIRED_PARAMETERS: Readonly<Record<string, string>> = {
  format: 'use as=json or as=markdown',
  detail: 'use view=full, brief or headline',
  maxLength: 'use budgetChars with as=markdown',
};

const KNOWN_PARAMETERS = [
  'runId',
  'suiteId',
  'caseId',
  'attempt',
  'as',
  'view',
  'page',
  'limit',
  'budgetChars',
  'project',
] as const;
type KnownParameter = (typeof KNOWN_PARAMETERS)[number];

/** A query as Express (or `rawQueryOf`) hands it over: a repeated parameter is an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

interface CommonRequest {
  as: BundleFormat;
  /** Only with as=markdown. */
  budgetChars?: number;
}

export interface RunScopeRequest extends CommonRequest {
  scope: 'run';
  runId: string;
  page: number;
  limit: number;
  view: 'full';
}

export interface SuiteScopeRequest extends CommonRequest {
  scope: 'suite';
  runId: string;
  suiteId: string;
  page: number;
  limit: number;
  view: BundleView;
}

export interface TestScopeRequest extends CommonRequest {
  scope: 'test';
  caseId: string;
  /** Absent: the latest run of the test case (returned in data.meta.runId). */
  runId?: string;
  /** 0-based; absent: the latest attempt. Check it with `resolveAttempt` once the attempts are known. */
  attempt?: number;
  /** The platform whose attempts to show; absent: the one where the test went worst in the run. */
  project?: string;
  view: BundleView;
}

/** A valid debug bundle request, by scope (spec §4.2 "Scope selection"). */
export type DebugBundleRequest = RunScopeRequest | SuiteScopeRequest | TestScopeRequest;

/** One broken rule; `rule` is its number in spec §4.2's rejection list, or null. */
export interface QueryIssue {
  parameter: string;
  rule: number | null;
  message: string;
}

/** How one parameter arrived: not at all, once, or more than once. */
type Arrival = { kind: 'absent' } | { kind: 'once'; raw: string } | { kind: 'repeated' };

/**
 * Reads and checks the debug bundle query; throws a 400 VALIDATION_ERROR naming every broken rule.
 *
 * @example const request = parseDebugBundleQuery(rawQueryOf(req.originalUrl));
 */
export function parseDebugBundleQuery(rawQuery: RawQuery): DebugBundleRequest {
  const issues: QueryIssue[] = [];
  const arrivals = readArrivals(rawQuery, issues);
  const sent = (name: KnownParameter) => arrivals[name].kind !== 'absent';
  const parsed = parseValues(arrivals, issues);
  const scope = scopeOf(sent('caseId'), sent('suiteId'), sent('runId'));

  checkScopeRules(sent, scope, issues);
  checkRunScopeView(arrivals.view, scope, issues);
  checkTestScopePaging(arrivals, parsed, scope, issues);
  checkBudgetNeedsMarkdown(arrivals, issues);

  if (issues.length > 0 || scope === undefined) {
    throw new ValidationError(issues.map((issue) => issue.message).join('; '), { issues });
  }
  return buildRequest(scope, parsed);
}

/**
 * The query of a URL as `parseDebugBundleQuery` wants it, a repeated parameter as an array, a name in the
 * bracket form (`view[]`) as the name itself. Reading the raw URL makes rule 8 independent of how the
 * framework's query parser folds `a=1&a=1`.
 *
 * @example rawQueryOf('/p1/debug-bundle?runId=r1&runId=r1') // { runId: ['r1', 'r1'] }
 */
export function rawQueryOf(url: string): RawQuery {
  const start = url.indexOf('?');
  // No prototype: a parameter named `__proto__` is then a plain key, not a prototype swap.
  const query = Object.create(null) as RawQuery;
  if (start === -1) return query;
  for (const [sentName, sentValue] of new URLSearchParams(url.slice(start + 1))) {
    // `view[]=brief` is how qs-style clients write `view`: it is the parameter, so its rules apply to it.
    const name = storableText(sentName.replace(/\[[^\]]*\]$/, ''));
    const value = storableText(sentValue);
    const previous = query[name];
    if (previous === undefined) query[name] = value;
    else query[name] = Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return query;
}

/** The query parameters as the OpenAPI document shows them; the contract keeps the one copy. */
export { DebugBundleQueryDoc } from '@verdict/contracts';

// ——— reading ———

/**
 * Each known parameter's arrival. Reports rule 9 (retired) and rule 8 (repeated) on the way; rule 8
 * covers unknown parameters too, as the spec says "any parameter".
 */
function readArrivals(rawQuery: RawQuery, issues: QueryIssue[]): Record<KnownParameter, Arrival> {
  for (const [name, value] of Object.entries(rawQuery)) {
    const arrival = arrivalOf(value);
    if (Object.hasOwn(RETIRED_PARAMETERS, name) && arrival.kind !== 'absent') {
      const message = `${name}: is a retired parameter (${RETIRED_PARAMETERS[name]})`;
      issues.push({ parameter: name, rule: 9, message });
    } else if (arrival.kind === 'repeated') {
      issues.push({ parameter: name, rule: 8, message: `${name}: must not be sent more than once` });
    }
  }
  const arrivals = {} as Record<KnownParameter, Arrival>;
  for (const name of KNOWN_PARAMETERS) arrivals[name] = arrivalOf(rawQuery[name]);
  return arrivals;
}

function arrivalOf(value: unknown): Arrival {
  if (value === undefined) return { kind: 'absent' };
  if (typeof value === 'string') return { kind: 'once', raw: value };
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: 'absent' };
    if (value.length === 1 && typeof value[0] === 'string') return { kind: 'once', raw: value[0] };
  }
  // Two or more values; a nested object (`a[b]=1` under an extended parser) cannot be read either.
  return { kind: 'repeated' };
}

interface ParsedValues {
  runId?: string;
  suiteId?: string;
  caseId?: string;
  attempt?: number;
  as?: BundleFormat;
  view?: BundleView;
  page?: number;
  limit?: number;
  budgetChars?: number;
  project?: string;
}

/** Each parameter sent once, parsed; an invalid one is reported and left out. */
function parseValues(arrivals: Record<KnownParameter, Arrival>, issues: QueryIssue[]): ParsedValues {
  const { page, limit, budgetChars } = DEBUG_BUNDLE_LIMITS;
  return {
    runId: parseId('runId', arrivals.runId, issues),
    suiteId: parseId('suiteId', arrivals.suiteId, issues),
    caseId: parseId('caseId', arrivals.caseId, issues),
    attempt: parseInteger('attempt', arrivals.attempt, 0, Number.MAX_SAFE_INTEGER, null, issues),
    as: parseChoice('as', arrivals.as, BundleFormat.options, issues),
    view: parseChoice('view', arrivals.view, BundleView.options, issues),
    page: parseInteger('page', arrivals.page, page.min, page.max, 10, issues),
    limit: parseInteger('limit', arrivals.limit, limit.min, limit.max, 10, issues),
    budgetChars: parseInteger(
      'budgetChars',
      arrivals.budgetChars,
      budgetChars.min,
      budgetChars.max,
      3,
      issues,
    ),
    project: parseId('project', arrivals.project, issues),
  };
}

function parseId(name: KnownParameter, arrival: Arrival, issues: QueryIssue[]): string | undefined {
  if (arrival.kind !== 'once') return undefined;
  if (arrival.raw.length === 0) {
    issues.push({ parameter: name, rule: null, message: `${name}: must not be empty` });
    return undefined;
  }
  if (arrival.raw.length > DEBUG_BUNDLE_LIMITS.idLength) {
    const message = `${name}: must be at most ${DEBUG_BUNDLE_LIMITS.idLength} characters`;
    issues.push({ parameter: name, rule: null, message });
    return undefined;
  }
  return arrival.raw;
}

function parseChoice<T extends string>(
  name: KnownParameter,
  arrival: Arrival,
  choices: readonly T[],
  issues: QueryIssue[],
): T | undefined {
  if (arrival.kind !== 'once') return undefined;
  const choice = choices.find((candidate) => candidate === arrival.raw);
  if (choice === undefined) {
    const message = `${name}: must be one of ${choices.join(', ')} (got ${JSON.stringify(arrival.raw)})`;
    issues.push({ parameter: name, rule: 3, message });
  }
  return choice;
}

function parseInteger(
  name: KnownParameter,
  arrival: Arrival,
  min: number,
  max: number,
  rule: number | null,
  issues: QueryIssue[],
): number | undefined {
  if (arrival.kind !== 'once') return undefined;
  const digits = /^[0-9]+$/.test(arrival.raw);
  const value = digits ? Number(arrival.raw) : Number.NaN;
  if (value >= min && value <= max) return value;
  // Without an upper bound (attempt), a bigger integer is still one: past every index, so INVALID_ATTEMPT.
  if (digits && max === Number.MAX_SAFE_INTEGER && value > max) return max;
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
  const message = `${name}: must be an integer ${range} (got ${JSON.stringify(arrival.raw)})`;
  issues.push({ parameter: name, rule, message });
  return undefined;
}

// ——— rules across parameters ———

/** Spec §4.2 "Scope selection": the most specific scope wins; undefined when none applies. */
function scopeOf(caseId: boolean, suiteId: boolean, runId: boolean): DebugBundleRequest['scope'] | undefined {
  if (caseId) return 'test';
  if (suiteId && runId) return 'suite';
  if (runId && !suiteId) return 'run';
  return undefined;
}

/** Rules 1, 2 and 5: which ids must come together. */
function checkScopeRules(
  sent: (name: KnownParameter) => boolean,
  scope: DebugBundleRequest['scope'] | undefined,
  issues: QueryIssue[],
): void {
  if (!sent('runId') && !sent('suiteId') && !sent('caseId')) {
    const message =
      'runId, suiteId, caseId: at least one is required (runId for a run, +suiteId for a suite, caseId for a test)';
    issues.push({ parameter: 'runId', rule: 1, message });
  }
  if (sent('suiteId') && !sent('runId')) {
    issues.push({ parameter: 'suiteId', rule: 2, message: 'suiteId: requires runId' });
  }
  if (sent('attempt') && scope !== 'test') {
    issues.push({ parameter: 'attempt', rule: 5, message: 'attempt: requires caseId' });
  }
  // Not in the spec's list: run and suite scopes list every platform, so a platform there would be ignored.
  if (sent('project') && scope !== 'test') {
    issues.push({ parameter: 'project', rule: null, message: 'project: requires caseId' });
  }
}

/** Rule 4: the run scope has a single view. */
function checkRunScopeView(
  view: Arrival,
  scope: DebugBundleRequest['scope'] | undefined,
  issues: QueryIssue[],
): void {
  if (scope !== 'run' || view.kind !== 'once' || view.raw === DEBUG_BUNDLE_DEFAULTS.view) return;
  issues.push({ parameter: 'view', rule: 4, message: 'view: only full is accepted at run scope' });
}

/** Rule 6: the test scope is not paginated, though the defaults may be sent. */
function checkTestScopePaging(
  arrivals: Record<KnownParameter, Arrival>,
  parsed: ParsedValues,
  scope: DebugBundleRequest['scope'] | undefined,
  issues: QueryIssue[],
): void {
  if (scope !== 'test') return;
  for (const name of ['page', 'limit'] as const) {
    if (arrivals[name].kind !== 'once' || parsed[name] === DEBUG_BUNDLE_DEFAULTS[name]) continue;
    const message = `${name}: only the default ${DEBUG_BUNDLE_DEFAULTS[name]} is accepted at test scope, which is not paginated`;
    issues.push({ parameter: name, rule: 6, message });
  }
}

/** Rule 7: a budget only makes sense for the Markdown body. */
function checkBudgetNeedsMarkdown(arrivals: Record<KnownParameter, Arrival>, issues: QueryIssue[]): void {
  const as = arrivals.as;
  if (arrivals.budgetChars.kind === 'absent' || as.kind === 'repeated') return;
  if (as.kind === 'once' && as.raw === 'markdown') return;
  issues.push({ parameter: 'budgetChars', rule: 7, message: 'budgetChars: requires as=markdown' });
}

// ——— the result ———

function buildRequest(scope: DebugBundleRequest['scope'], values: ParsedValues): DebugBundleRequest {
  const common: CommonRequest = {
    as: values.as ?? DEBUG_BUNDLE_DEFAULTS.as,
    ...(values.budgetChars === undefined ? {} : { budgetChars: values.budgetChars }),
  };
  const page = values.page ?? DEBUG_BUNDLE_DEFAULTS.page;
  const limit = values.limit ?? DEBUG_BUNDLE_DEFAULTS.limit;
  const view = values.view ?? DEBUG_BUNDLE_DEFAULTS.view;
  switch (scope) {
    case 'run':
      return { scope, runId: required(values.runId), page, limit, view: 'full', ...common };
    case 'suite':
      return {
        scope,
        runId: required(values.runId),
        suiteId: required(values.suiteId),
        page,
        limit,
        view,
        ...common,
      };
    case 'test':
      return {
        scope,
        caseId: required(values.caseId),
        ...(values.runId === undefined ? {} : { runId: values.runId }),
        ...(values.attempt === undefined ? {} : { attempt: values.attempt }),
        ...(values.project === undefined ? {} : { project: values.project }),
        view,
        ...common,
      };
  }
}

/** Scope selection already proved the id was sent, and no issue means it parsed. */
function required(value: string | undefined): string {
  if (value === undefined) throw new Error('debug bundle query: scope id missing after validation');
  return value;
}
