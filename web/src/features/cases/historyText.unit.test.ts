import { shortValue } from './historyText';

describe("a value in the case's history", () => {
  it('when it is text, then it shows as is, or as a dash when empty', () => {
    expect(shortValue('Open the cart')).toBe('Open the cart');
    expect(shortValue('')).toBe('—');
    expect(shortValue(undefined)).toBe('—');
  });

  it('when it is not text, then it shows as JSON', () => {
    expect(shortValue(['a', 'b'])).toBe('["a","b"]');
    expect(shortValue(3)).toBe('3');
  });

  it('when it is longer than 80 characters, then it is cut to 77 and an ellipsis', () => {
    const shown = shortValue('x'.repeat(100));
    expect(shown).toHaveLength(78);
    expect(shown.endsWith('…')).toBe(true);
  });
});
