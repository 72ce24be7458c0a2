import { clip, code, codeBlock, duration, firstLine, fitLines, oneLine, table } from './markdown';

describe('Markdown pieces', () => {
  it('when text holds colours, line breaks and tabs, then oneLine folds it into one clean line', () => {
    expect(oneLine('\u001b[31mexpected\u001b[39m\n\t200\r\ngot 500 ')).toBe('expected 200 got 500');
  });

  it('when a message starts with blank lines, then firstLine is its first line with text', () => {
    expect(firstLine('\n  \nError: boom\n  at x')).toBe('Error: boom');
  });

  it('when text is longer than the limit, then clip ends it with an ellipsis within the limit', () => {
    expect(clip('abcdefghij', 5)).toBe('abcd…');
    expect(clip('abc', 5)).toBe('abc');
  });

  it('when content holds backticks, then code fences it with a longer run', () => {
    expect(code('a `b` c')).toBe('``a `b` c``');
    expect(code('`x`')).toBe('`` `x` ``');
    expect(code('')).toBe('""');
  });

  it('when a block holds a fence, then codeBlock uses a longer one', () => {
    expect(codeBlock('```js\nx\n```')).toBe('````text\n```js\nx\n```\n````');
  });

  it('when a cell holds a pipe or a line break, then the table stays one row per item', () => {
    expect(
      table(
        ['A', 'B'],
        [
          ['x | y', 'one\ntwo'],
          [null, 3],
        ],
      ),
    ).toBe('| A | B |\n| --- | --- |\n| x \\| y | one two |\n| – | 3 |');
  });

  it('when durations are given in milliseconds, then they read in the largest sensible unit', () => {
    expect([duration(812), duration(4_210), duration(182_000), duration(null)]).toEqual([
      '812 ms',
      '4.2 s',
      '3 min 2 s',
      '–',
    ]);
  });

  it('when lines do not fit the budget, then fitLines keeps the first ones and ends with the note on the rest', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    const text = fitLines(lines, 60, (omitted) => `… ${omitted} more`);
    expect(text.length).toBeLessThanOrEqual(60);
    expect(text.startsWith('line 0\nline 1\n')).toBe(true);
    const kept = text.split('\n').length - 1;
    expect(text.endsWith(`… ${100 - kept} more`)).toBe(true);
    expect(fitLines(['a', 'b'], 60, () => 'never')).toBe('a\nb');
  });
});
