import { newId } from './ids';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  it('when ids are minted, then each is a UUID version 7 with the RFC 9562 variant', () => {
    for (let i = 0; i < 100; i += 1) expect(newId()).toMatch(UUID_V7);
  });

  it('when 10,000 ids are minted in the same millisecond, then they are distinct and sort in creation order', () => {
    const now = Date.now() + 60_000;
    const ids = Array.from({ length: 10_000 }, () => newId(now));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('when ids are minted across many milliseconds, then their random parts differ (the entropy pool refills)', () => {
    const start = Date.now() + 120_000;
    const tails = Array.from({ length: 1_000 }, (_, i) => newId(start + i).slice(24));
    expect(new Set(tails).size).toBe(tails.length);
  });
});
