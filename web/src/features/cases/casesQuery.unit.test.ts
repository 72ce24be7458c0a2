import { casesQueryOf, PAGE_SIZE } from './casesQuery';

describe("the case library's query", () => {
  it('when nothing is asked, then the first page of 50 is', () => {
    expect(casesQueryOf({})).toEqual({ page: 1, limit: PAGE_SIZE });
  });

  it('when filters, a suite and a sort are asked, then they become the API parameters', () => {
    expect(
      casesQueryOf({
        page: 3,
        search: 'pay',
        priority: 'high',
        suite: 's1',
        flaky: 'true',
        muted: 'false',
        sortBy: 'status',
        order: 'desc',
      }),
    ).toEqual({
      page: 3,
      limit: PAGE_SIZE,
      search: 'pay',
      priority: 'high',
      suiteId: 's1',
      isFlaky: 'true',
      isMuted: 'false',
      sortBy: 'classification.status',
      sortOrder: 'desc',
    });
  });

  it('when the unassigned suite is asked, then the cases in no suite are', () => {
    expect(casesQueryOf({ suite: 'unassigned' }).suiteId).toBe('null');
  });
});
