import { z } from 'zod';
import { AnalyticsIsoDate, SummaryQuery } from './analytics';
import { IssuePersonalTokenRequest } from './identity';
import {
  DAY_OR_INSTANT_PATTERN,
  DAY_PATTERN,
  DayInput,
  INSTANT_PATTERN,
  INSTANT_RANGE,
  InstantInput,
  keptDayOrInstant,
  keptInstant,
  keptInstantOrNull,
} from './instant';
import { CreateReleaseRequest } from './manualTesting';
import { ResultItem, RecordedResultItem } from './testResults';
import { TestRunsQuery } from './testResultsReads';
import { StartRunRequest } from './testResultsIngest';

const messages = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('InstantInput: one definition of an instant a client sends', () => {
  it.each([
    ['1000-01-01T00:00:00Z', '1000-01-01T00:00:00.000Z'],
    ['2026-03-01T10:00:00+02:00', '2026-03-01T08:00:00.000Z'],
    ['2024-02-29T12:00:00.123Z', '2024-02-29T12:00:00.123Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['2026-03-01T10:00:00.123456Z', '2026-03-01T10:00:00.123Z'],
    // RFC 3339 allows offsets up to ±23:59; PostgreSQL refuses past ±15:59 (a 500 the fuzzer found).
    ['2664-08-13T18:07:59+21:27', '2664-08-12T20:40:59.000Z'],
  ])('when %s is sent, then it is accepted as that instant in UTC: %s', (value, kept) => {
    expect(InstantInput.parse(value)).toBe(kept);
  });

  it.each([
    // The three instants of issue 19: a year JavaScript and PostgreSQL do not agree on, or one PostgreSQL lacks.
    '0020-02-29T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '0000-06-01T00:00:00Z',
    '0999-12-31T23:59:59.999Z',
    // An offset that moves a four-digit local year out of range in UTC.
    '1000-01-01T00:30:00+01:00',
    '9999-12-31T23:59:59.999-23:59',
  ])('when %s is sent, then it is refused as out of range', (value) => {
    expect(messages(InstantInput, value)).toEqual([
      `: must be an instant from ${INSTANT_RANGE.from} to ${INSTANT_RANGE.to} in UTC`,
    ]);
  });

  it.each([
    '2026-03-01',
    '2026-03-01T10:00Z',
    '2026-03-01T10:00:00',
    '2026-02-30T10:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-03-01 10:00:00Z',
    '+010000-01-01T00:00:00Z',
    'tomorrow',
  ])('when %s is sent, then it is refused as not a date-time', (value) => {
    expect(messages(InstantInput, value)).toEqual([
      ': must be an RFC 3339 date-time with an offset, such as 2026-03-01T10:00:00Z',
    ]);
  });

  it('when the schema is shown in the OpenAPI document, then its pattern is the one it checks and its description names the range', () => {
    const shown = z.toJSONSchema(InstantInput, { io: 'input' }) as {
      pattern: string;
      format: string;
      description: string;
    };
    expect(shown.format).toBe('date-time');
    expect(shown.pattern).toBe(INSTANT_PATTERN.source);
    expect(shown.description).toContain(`from ${INSTANT_RANGE.from} to ${INSTANT_RANGE.to}`);
  });

  it('when every day from 0999 to 1001 and of a few leap-year edges is checked, then the pattern agrees with the calendar', () => {
    const isDay = (year: number, month: number, day: number) => {
      const at = new Date(0);
      at.setUTCFullYear(year, month - 1, day);
      return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
    };
    for (const year of [999, 1000, 1001, 1200, 1600, 1700, 1900, 1996, 2000, 2024, 2100, 9996, 9999]) {
      for (let month = 1; month <= 12; month += 1) {
        for (let day = 28; day <= 31; day += 1) {
          const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          const expected = year >= 1000 && isDay(year, month, day);
          expect({ text, day: DAY_PATTERN.test(text) }).toEqual({ text, day: expected });
          expect({ text, instant: INSTANT_PATTERN.test(`${text}T00:00:00Z`) }).toEqual({
            text,
            instant: expected,
          });
          expect({ text, either: DAY_OR_INSTANT_PATTERN.test(text) }).toEqual({ text, either: expected });
        }
      }
    }
  });

  it('when a run start, a result, a release date, a token expiry or a run list bound is out of range, then the field is named', () => {
    expect(messages(StartRunRequest, { startedAt: '0020-02-29T00:00:00Z' })).toEqual([
      `startedAt: must be an instant from ${INSTANT_RANGE.from} to ${INSTANT_RANGE.to} in UTC`,
    ]);
    const result = {
      file: 'a.spec.ts',
      titlePath: ['a'],
      attempt: 0,
      status: 'passed',
      durationMs: 1,
      startedAt: '0001-01-01T00:00:00Z',
    };
    expect(messages(ResultItem, result)).toHaveLength(1);
    expect(messages(ResultItem, result)[0]).toMatch(/^startedAt: must be an instant from/);
    expect(messages(CreateReleaseRequest, { name: 'R', startDate: '0999-12-31' })).toEqual([
      'startDate: must be a day from 1000-01-01 to 9999-12-31',
    ]);
    expect(
      messages(IssuePersonalTokenRequest, {
        kind: 'personal',
        userId: 'u',
        projectIds: ['p'],
        expiresAt: '0000-06-01T00:00:00Z',
      })[0],
    ).toMatch(/^expiresAt: must be an instant from/);
    expect(
      messages(TestRunsQuery, { start_date: '0020-02-29T00:00:00z', end_date: '2026-01-01T00:00:00Z' })[0],
    ).toMatch(/^start_date: must be an instant from/);
  });

  it('when a token is asked never to expire, then the refusal says why rather than "expected string"', () => {
    expect(
      messages(IssuePersonalTokenRequest, {
        kind: 'personal',
        userId: 'u',
        projectIds: ['p'],
        expiresAt: null,
      }),
    ).toEqual(['expiresAt: must be a date-time: every token expires (leave it out for 365 days from now)']);
  });

  it('when a result event recorded before the range was enforced is read back, then it still parses', () => {
    expect(
      RecordedResultItem.safeParse({
        file: 'a.spec.ts',
        titlePath: ['a'],
        attempt: 0,
        status: 'passed',
        durationMs: 1,
        startedAt: '0000-06-01T00:00:00Z',
      }).success,
    ).toBe(true);
  });
});

describe('DayInput and the analytics dates: the same range for calendar days', () => {
  it('when a day is in range, then it is accepted; when out of range or not a day, then refused with why', () => {
    expect(DayInput.parse('1000-01-01')).toBe('1000-01-01');
    expect(messages(DayInput, '0020-02-29')).toEqual([': must be a day from 1000-01-01 to 9999-12-31']);
    expect(messages(DayInput, '2026-02-30')).toEqual([
      ': must be a calendar day YYYY-MM-DD, such as 2026-03-01',
    ]);
  });

  it.each(['2026-03-01', '2026-03-01T10:00', '2026-03-01T10:00:00Z', '2026-03-01T10:00:00.5+0100'])(
    'when the analytics date %s is sent, then it is accepted',
    (value) => {
      expect(AnalyticsIsoDate.safeParse(value).success).toBe(true);
    },
  );

  it.each(['0020-02-29', '0001-01-01', '0000-06-01', '2026-02-30', '', '2026-3-1'])(
    'when the analytics date %j is sent, then it is refused, with dateRange or without',
    (value) => {
      expect(messages(SummaryQuery, { startDate: value, endDate: '2026-03-01' })[0]).toMatch(/^startDate: /);
      expect(messages(SummaryQuery, { dateRange: '7d', startDate: value })[0]).toMatch(/^startDate: /);
    },
  );
});

describe('keptInstant: how a stored instant is shown', () => {
  it('when an instant is in range, then it shows as ISO 8601 UTC to the millisecond, whatever form it came in', () => {
    expect(keptInstant('2026-03-01T10:00:00+02:00')).toBe('2026-03-01T08:00:00.000Z');
    expect(keptInstant(new Date(Date.UTC(2026, 2, 1)))).toBe('2026-03-01T00:00:00.000Z');
    expect(keptInstant(Date.UTC(2026, 2, 1))).toBe('2026-03-01T00:00:00.000Z');
    expect(keptInstant(INSTANT_RANGE.from)).toBe(INSTANT_RANGE.from);
    expect(keptInstant(INSTANT_RANGE.to)).toBe(INSTANT_RANGE.to);
  });

  it.each([
    '0020-02-29T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '0000-06-01T00:00:00Z',
    '-000001-01-01T00:00:00Z',
  ])('when %s was stored before the range was enforced, then it shows as the start of the range', (value) => {
    expect(keptInstant(value)).toBe(INSTANT_RANGE.from);
  });

  it('when an instant lies past the range (or is PostgreSQL infinity), then it shows as the end of the range', () => {
    expect(keptInstant('+010000-01-01T00:00:00Z')).toBe(INSTANT_RANGE.to);
    expect(keptInstant(Infinity)).toBe(INSTANT_RANGE.to);
    expect(keptInstant(-Infinity)).toBe(INSTANT_RANGE.from);
  });

  it('when a release date is a day or an instant out of range, then it shows as the nearest end; in range as stored', () => {
    expect(keptDayOrInstant('0001-01-01')).toBe('1000-01-01');
    expect(keptDayOrInstant('2026-03-01')).toBe('2026-03-01');
    expect(keptDayOrInstant('0000-06-01T00:00:00.000Z')).toBe(INSTANT_RANGE.from);
    expect(keptDayOrInstant(null)).toBeNull();
  });

  it('when a nullable column is null, then it stays null', () => {
    expect(keptInstantOrNull(null)).toBeNull();
    expect(keptInstantOrNull('2026-03-01T00:00:00Z')).toBe('2026-03-01T00:00:00.000Z');
  });
});
