import { explorerListQuery } from './filters';

describe('explorer filters', () => {
  it('asks for the latest executed first over 30 days by default', () => {
    expect(explorerListQuery({})).toEqual({
      page: 1,
      limit: 50,
      sortBy: 'lastExecution',
      order: 'desc',
      days: 30,
    });
  });

  it('keeps the sort, the window and the filters set', () => {
    expect(
      explorerListQuery({
        page: 2,
        sortBy: 'failRate',
        order: 'asc',
        days: 7,
        status: 'flaky',
        platform: 'webkit',
      }),
    ).toEqual({
      page: 2,
      limit: 50,
      sortBy: 'failRate',
      order: 'asc',
      days: 7,
      status: 'flaky',
      platform: 'webkit',
    });
  });
});
