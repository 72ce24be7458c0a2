import { ConfigError, loadConfig } from '@verdict/platform';
import { TestResultsConfig } from './config';

const required = {
  DATABASE_URL: 'postgres://verdict:verdict@127.0.0.1:5432/verdict',
  KAFKA_BROKERS: '127.0.0.1:9092',
  VERDICT_INTERNAL_SECRET: 'i'.repeat(32),
  VERDICT_URL_SIGNING_SECRET: 's'.repeat(32),
};

describe('the test-results process configuration', () => {
  it('when VERDICT_TEST_RESULTS_ROLE is not set, then the process runs everything (all)', () => {
    expect(loadConfig(TestResultsConfig, required).role).toBe('all');
  });

  it('when VERDICT_TEST_RESULTS_ROLE is api or projector, then the process runs that part', () => {
    expect(loadConfig(TestResultsConfig, { ...required, VERDICT_TEST_RESULTS_ROLE: 'api' }).role).toBe('api');
    expect(loadConfig(TestResultsConfig, { ...required, VERDICT_TEST_RESULTS_ROLE: 'projector' }).role).toBe(
      'projector',
    );
  });

  it('when VERDICT_TEST_RESULTS_ROLE names no role, then the process refuses to start and says which it takes', () => {
    expect(() => loadConfig(TestResultsConfig, { ...required, VERDICT_TEST_RESULTS_ROLE: 'worker' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig(TestResultsConfig, { ...required, VERDICT_TEST_RESULTS_ROLE: 'worker' })).toThrow(
      /VERDICT_TEST_RESULTS_ROLE.*"all"\|"api"\|"projector"/,
    );
  });
});
