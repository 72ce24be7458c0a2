import { ConfigError, loadConfig } from '@verdict/platform';
import { AnalyticsConfig } from './config';
import { ANALYTICS_PROJECTOR_CONCURRENCY } from './module';

const required = {
  DATABASE_URL: 'postgres://verdict:verdict@127.0.0.1:5432/verdict',
  KAFKA_BROKERS: '127.0.0.1:9092',
  VERDICT_INTERNAL_SECRET: 'i'.repeat(32),
};

describe('the analytics process configuration', () => {
  it('when VERDICT_ANALYTICS_CONCURRENCY is not set, then the projector applies two batches at once', () => {
    expect(loadConfig(AnalyticsConfig, required).projectorConcurrency).toBe(ANALYTICS_PROJECTOR_CONCURRENCY);
    expect(ANALYTICS_PROJECTOR_CONCURRENCY).toBe(2);
  });

  it('when VERDICT_ANALYTICS_CONCURRENCY is a number from 1 to 16, then that many', () => {
    expect(
      loadConfig(AnalyticsConfig, { ...required, VERDICT_ANALYTICS_CONCURRENCY: '1' }).projectorConcurrency,
    ).toBe(1);
    expect(
      loadConfig(AnalyticsConfig, { ...required, VERDICT_ANALYTICS_CONCURRENCY: '16' }).projectorConcurrency,
    ).toBe(16);
  });

  it.each(['0', '17', '1.5', 'two'])(
    'when VERDICT_ANALYTICS_CONCURRENCY is %s, then the process refuses to start and names it',
    (value) => {
      expect(() =>
        loadConfig(AnalyticsConfig, { ...required, VERDICT_ANALYTICS_CONCURRENCY: value }),
      ).toThrow(ConfigError);
      expect(() =>
        loadConfig(AnalyticsConfig, { ...required, VERDICT_ANALYTICS_CONCURRENCY: value }),
      ).toThrow(/VERDICT_ANALYTICS_CONCURRENCY/);
    },
  );
});
