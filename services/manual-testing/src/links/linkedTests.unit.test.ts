import { caseNumbersOf, titlesOf } from './linkedTests';

describe('which cases an automated result names', () => {
  it('when the title carries @TC-<n> tags, then each is a case; a bare TC-<n> in a title is not', () => {
    expect(caseNumbersOf({ titlePath: ['Cart @TC-3', 'adds @tc-12 and @TC-7'] })).toEqual([3, 7, 12]);
    expect(caseNumbersOf({ titlePath: ['mentions TC-5 in passing'] })).toEqual([]);
  });

  it('when tags name TC-<n> with or without @, then each is a case', () => {
    expect(caseNumbersOf({ titlePath: ['x'], tags: ['@TC-4', 'TC-9', '@smoke'] })).toEqual([4, 9]);
  });

  it('when a case annotation names keys, then each is a case; other annotation types are ignored', () => {
    expect(
      caseNumbersOf({
        titlePath: ['x'],
        annotations: [
          { type: 'case', description: 'TC-12' },
          { type: 'Case', description: 'TC-13, TC-14' },
          { type: 'issue', description: 'TC-99' },
        ],
      }),
    ).toEqual([12, 13, 14]);
  });

  it('when a test is linked, then its full title has the file and title path and its display title drops the tag', () => {
    expect(titlesOf({ file: 'tests/a.spec.ts', titlePath: ['Cart', 'adds @TC-3'] })).toEqual({
      fullTitle: 'tests/a.spec.ts › Cart › adds @TC-3',
      displayTitle: 'adds',
    });
  });
});
