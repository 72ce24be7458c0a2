import { plain } from './plain';

describe('plain', () => {
  it('drops ANSI colour codes and keeps the text', () => {
    expect(plain('\u001b[31mExpected\u001b[39m 1, got \u001b[1;32m2\u001b[0m')).toBe('Expected 1, got 2');
    expect(plain('no colour')).toBe('no colour');
  });
});
