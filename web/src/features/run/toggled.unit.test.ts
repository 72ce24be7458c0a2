import { toggled } from './toggled';

describe('toggled', () => {
  it('adds a missing key and removes a present one, leaving the given set alone', () => {
    const start = new Set(['a']);
    expect([...toggled(start, 'b')]).toEqual(['a', 'b']);
    expect([...toggled(start, 'a')]).toEqual([]);
    expect([...start]).toEqual(['a']);
  });
});
