import { z } from 'zod';

/**
 * One definition of an instant for everything a client sends (run and result times, release dates, token
 * expiry, query dates) and one rule for how a stored instant is shown.
 *
 * The range is where JavaScript's Date and PostgreSQL's timestamptz agree on every value and a value reads
 * back as it was sent: years 0 to 99 are where Date.UTC and the Date constructor read 1900–1999 and where
 * PostgreSQL text such as `0020-02-29 00:00:00+00` parses as 2020 or not at all; year 0 does not exist in
 * PostgreSQL (1 BC does); and years past 9999 print as `+010000-…`, which is not RFC 3339. Years 1000 to
 * 9999 keep four digits and have none of those pitfalls.
 */
export const INSTANT_RANGE = { from: '1000-01-01T00:00:00.000Z', to: '9999-12-31T23:59:59.999Z' } as const;

const FROM_MS = Date.parse(INSTANT_RANGE.from);
const TO_MS = Date.parse(INSTANT_RANGE.to);

// A calendar day of years 1000–9999: 29 February only in leap years (divisible by 4, centuries by 400).
const YEAR = '[1-9]\\d{3}';
const LEAP_DAY = '(?:[1-9]\\d(?:[2468][048]|[13579][26]|0[48])|(?:[2468][048]|[13579][26])00)-02-29';
const MONTH_DAY =
  '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))';
const DAY = `(?:${LEAP_DAY}|${YEAR}-${MONTH_DAY})`;
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?';
const OFFSET = '(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';

/** An RFC 3339 date-time with its offset, years 1000–9999 (the offset may still move it out, see below). */
export const INSTANT_PATTERN = new RegExp(`^${DAY}T${TIME}${OFFSET}$`);
/** A calendar day `YYYY-MM-DD`, years 1000–9999. */
export const DAY_PATTERN = new RegExp(`^${DAY}$`);
/** A calendar day, or a date-time that counts for its day (seconds and offset optional), years 1000–9999. */
export const DAY_OR_INSTANT_PATTERN = new RegExp(
  `^${DAY}(?:T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?(?:Z|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)?)?$`,
);

/**
 * Whether a value the pattern refuses is refused for its year only: the same text in year 2000 (a leap
 * year) would pass, and its own year is not one of the range. Says "out of range" rather than "not a date".
 */
function outOfRangeOnly(value: string, pattern: RegExp): boolean {
  const year = /^(\d{4})-/.exec(value)?.[1];
  if (year === undefined) return false;
  return (Number(year) < 1000 && pattern.test(`2000${value.slice(4)}`)) || pattern.test(value);
}

const RANGE_TEXT = `from ${INSTANT_RANGE.from} to ${INSTANT_RANGE.to} in UTC`;
const INSTANT_DESCRIPTION =
  `An RFC 3339 date-time with an offset (Z or ±hh:mm), ${RANGE_TEXT}; kept in UTC to the millisecond ` +
  '(further fractional digits are dropped).';
const DAY_DESCRIPTION = 'A calendar day YYYY-MM-DD from 1000-01-01 to 9999-12-31.';

/** Whether an instant (or a day, read as its UTC midnight) lies in INSTANT_RANGE. */
export const inInstantRange = (ms: number) => ms >= FROM_MS && ms <= TO_MS;

/**
 * An instant a client sends. Outside the range (or not a date-time) it is a 400 naming the field; inside,
 * it comes out in the one form Verdict keeps (ISO 8601 in UTC, to the millisecond: keptInstant), so that
 * whatever offset it was sent with (RFC 3339 allows up to ±23:59, PostgreSQL only ±15:59) it reads back as
 * the same instant. The document shows its pattern and the range.
 * `notText` words the refusal of a value that is not a string at all (null, say) where a field needs to.
 *
 * @example const Body = z.object({ expiresAt: instantInput((input) => input === null ? 'must not be null' : undefined) });
 */
export const instantInput = (notText?: (input: unknown) => string | undefined) =>
  z
    .string(notText ? { error: (issue) => notText(issue.input) } : undefined)
    .superRefine((value, ctx) => {
      if (INSTANT_PATTERN.test(value) && inInstantRange(Date.parse(value))) return;
      ctx.addIssue({
        code: 'custom',
        input: value,
        message: outOfRangeOnly(value, INSTANT_PATTERN)
          ? `must be an instant ${RANGE_TEXT}`
          : 'must be an RFC 3339 date-time with an offset, such as 2026-03-01T10:00:00Z',
      });
    })
    .transform((value) => new Date(value).toISOString())
    .meta({ format: 'date-time', pattern: INSTANT_PATTERN.source, description: INSTANT_DESCRIPTION });

/** An instant a client sends (instantInput without a wording of its own). */
export const InstantInput = instantInput();

/**
 * A calendar day a client sends (`2026-03-01`), years 1000–9999; February 30 is not one.
 *
 * @example const Query = z.object({ startDate: DayInput.optional() });
 */
export const DayInput = z
  .string()
  .superRefine((value, ctx) => {
    if (DAY_PATTERN.test(value)) return;
    ctx.addIssue({
      code: 'custom',
      input: value,
      message: outOfRangeOnly(value, DAY_PATTERN)
        ? 'must be a day from 1000-01-01 to 9999-12-31'
        : 'must be a calendar day YYYY-MM-DD, such as 2026-03-01',
    });
  })
  .meta({ format: 'date', pattern: DAY_PATTERN.source, description: DAY_DESCRIPTION });

/**
 * How Verdict stores and shows an instant it holds: ISO 8601 in UTC to the millisecond, clamped into
 * INSTANT_RANGE. Every instant a client sends now is inside the range and comes back unchanged; only
 * values recorded before the range was enforced (a run started "0020-02-29" by a CI machine with a broken
 * clock) can lie outside it, and they show as the nearest end of the range (1000-01-01T00:00:00.000Z)
 * rather than failing a read, a projection or a webhook. The events themselves keep what was sent.
 *
 * @example keptInstant('0020-02-29T00:00:00Z') // '1000-01-01T00:00:00.000Z'
 */
export function keptInstant(value: Date | string | number): string {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  // NaN cannot come from PostgreSQL's timestamptz or an event's validated string; were it to, the earliest
  // instant is shown rather than a 500.
  if (Number.isNaN(ms) || ms < FROM_MS) return INSTANT_RANGE.from;
  if (ms > TO_MS) return INSTANT_RANGE.to;
  return new Date(ms).toISOString();
}

/**
 * keptInstant for a value that is a calendar day (`2026-03-01`, kept as sent) or an instant: a day before
 * 1000-01-01 or after 9999-12-31 shows as that day, an instant as keptInstant says; null stays null.
 *
 * @example keptDayOrInstant('0001-01-01') // '1000-01-01'
 */
export function keptDayOrInstant(value: string | null): string | null {
  if (value === null) return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return keptInstant(value);
  if (value < '1000-01-01') return '1000-01-01';
  return value > '9999-12-31' ? '9999-12-31' : value;
}

/** keptInstant for nullable columns. */
export const keptInstantOrNull = (value: Date | string | number | null | undefined): string | null =>
  value === null || value === undefined ? null : keptInstant(value);
