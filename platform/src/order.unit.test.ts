import { byCodePoint } from './order';

describe('code point order', () => {
  it('when strings are sorted, then upper case comes before lower case, a prefix before its longer string, and equal strings tie', () => {
    expect(['b', 'a', 'B', 'ab', 'é', 'e'].sort(byCodePoint)).toEqual(['B', 'a', 'ab', 'b', 'e', 'é']);
    expect(byCodePoint('x', 'x')).toBe(0);
  });
});
