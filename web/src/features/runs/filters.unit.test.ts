import { isFiltered, runListQuery } from './filters';

describe('runs filters', () => {
  const now = new Date('2026-03-10T12:00:00.000Z');

  it('asks for the first page of fifty when nothing is set', () => {
    expect(runListQuery({}, now)).toEqual({ page: 1, limit: 50 });
    expect(isFiltered({ page: 3 })).toBe(false);
  });

  it('turns a date range into a window ending now, and keeps the filters set', () => {
    expect(runListQuery({ page: 2, branch: 'main', status: 'failed', range: '24h' }, now)).toEqual({
      page: 2,
      limit: 50,
      branch: 'main',
      status: 'failed',
      start_date: '2026-03-09T12:00:00.000Z',
      end_date: '2026-03-10T12:00:00.000Z',
    });
    expect(isFiltered({ range: '7d' })).toBe(true);
  });
});
