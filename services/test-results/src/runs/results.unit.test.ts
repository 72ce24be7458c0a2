import { ResultItem, resultKey } from '@verdict/contracts';
import { realisticResult } from './fixtures';
import { MAX_LISTED_PROBLEMS, distinctResults, parseResults, resultEventId, resultEvents } from './results';

function refusalOf(input: unknown): { code?: string; message: string } {
  try {
    parseResults(input);
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a refusal');
}

describe('a batch of results', () => {
  it('when every item is a result, then the batch parses to them in order', () => {
    const batch = [realisticResult(1), realisticResult(2), realisticResult(3)];
    expect(parseResults(JSON.parse(JSON.stringify(batch)))).toEqual(batch);
    expect(parseResults([])).toEqual([]);
  });

  it('when items are bad, then one VALIDATION_ERROR lists each problem as results[<index>].<field path>: <reason>', () => {
    const good = realisticResult(0);
    const refusal = refusalOf([
      good,
      { ...realisticResult(1), status: 'exploded' },
      good,
      { ...realisticResult(3), file: undefined, attempt: -1 },
      { ...realisticResult(4), steps: [{ title: 'x', durationMs: 'slow' }] },
    ]);
    expect(refusal.code).toBe('VALIDATION_ERROR');
    const problems = refusal.message.split('; ');
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^results\[1\]\.status: /);
    expect(problems.slice(1, 3).sort()).toEqual([
      expect.stringMatching(/^results\[3\]\.attempt: /),
      expect.stringMatching(/^results\[3\]\.file: /),
    ]);
    expect(problems[3]).toMatch(/^results\[4\]\.steps\[0\]\.durationMs: /);
  });

  it('when an item is not even an object, then its problem names its index', () => {
    expect(refusalOf([realisticResult(0), 'passed']).message).toMatch(/^results\[1\]: /);
  });

  it('when the batch is not an array or holds more than 1,000 items, then it is refused as a whole', () => {
    expect(refusalOf({ file: 'a' })).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: /^results: must be an array/,
    });
    const tooMany = Array.from({ length: 1_001 }, (_, i) => realisticResult(i));
    expect(refusalOf(tooMany).message).toMatch(/^results: must hold at most 1000 items, got 1001/);
    expect(parseResults(tooMany.slice(0, 1_000))).toHaveLength(1_000);
  });

  it('when very many items are bad, then the first 100 problems are listed and the rest counted', () => {
    const bad = Array.from({ length: 150 }, (_, i) => ({ ...realisticResult(i), status: 'nope' }));
    const message = refusalOf(bad).message;
    expect(message.split('; ')).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(message).toMatch(/results\[99\]\.status: [^;]*; and 50 more problem\(s\)$/);
  });

  it('when a batch repeats a result (file, titlePath, project, attempt), then the first is kept and the repeat counted', () => {
    const first = realisticResult(5);
    const retry = realisticResult(5, { attempt: 1, status: 'passed' });
    const otherProject = realisticResult(5, { project: 'mobile' });
    const repeat = { ...first, durationMs: 1 };
    const { distinct, repeated } = distinctResults([first, retry, repeat, otherProject]);
    expect(distinct).toEqual([first, retry, otherProject]);
    expect(repeated).toBe(1);
  });

  it('when a result is sent again, then its event id is the same; another attempt or run gets another id', () => {
    const item = realisticResult(9);
    const copy = ResultItem.parse(JSON.parse(JSON.stringify({ ...item, durationMs: 5 })));
    expect(resultEventId('run-1', copy)).toBe(resultEventId('run-1', item));
    expect(resultEventId('run-1', { ...item, attempt: 1 })).not.toBe(resultEventId('run-1', item));
    expect(resultEventId('run-2', item)).not.toBe(resultEventId('run-1', item));
    expect(resultKey(item)).toBe(resultKey(copy));
  });

  it('when events are built, then each carries its run, its item and its derived id', () => {
    const items = [realisticResult(1), realisticResult(2)];
    expect(resultEvents('run-1', items)).toEqual(
      items.map((item) => ({
        type: 'test.result-recorded',
        version: 1,
        data: { runId: 'run-1', item },
        eventId: resultEventId('run-1', item),
      })),
    );
  });
});
