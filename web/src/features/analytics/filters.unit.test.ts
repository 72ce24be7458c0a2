import { performanceParams, summaryParams } from './filters';

describe('analytics filters', () => {
  it('asks the summary for the range in days, and for a branch only within an environment', () => {
    expect(summaryParams('14d', {})).toEqual({ dateRange: '14d', days: 14 });
    expect(summaryParams('30d', { branch: 'main' })).toEqual({ dateRange: '30d', days: 30 });
    expect(summaryParams('7d', { environment: 'ci', branch: 'main' })).toEqual({
      dateRange: '7d',
      days: 7,
      environment: 'ci',
      environmentBranches: 'main',
    });
  });

  it('asks the performance report for the ten slowest, by environment and branch', () => {
    expect(performanceParams('90d', { branch: 'main' })).toEqual({
      dateRange: '90d',
      limit: 10,
      branch: 'main',
    });
  });
});
