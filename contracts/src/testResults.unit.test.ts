import { testCaseIdOf, testCaseKey } from './testResults';

describe('the id of a test case across runs', () => {
  it('when a test is named by its file and title path, then its id is the first 32 hex digits of the sha256 of its key, as stored ids already are', () => {
    // Pinned: ids are stored by test results, analytics and the manual cases' links, and shared in URLs.
    expect(testCaseIdOf({ file: 'tests/cart.spec.ts', titlePath: ['Cart', 'adds'] })).toBe(
      'b4e0cfa1bd7f81af1cccb54415385f78',
    );
  });

  it('when two tests differ only in how their title path is split, then their ids differ', () => {
    const joined = { file: 'a.spec.ts', titlePath: ['Cart adds'] };
    const split = { file: 'a.spec.ts', titlePath: ['Cart', 'adds'] };
    expect(testCaseKey(joined)).not.toBe(testCaseKey(split));
    expect(testCaseIdOf(joined)).not.toBe(testCaseIdOf(split));
  });
});
