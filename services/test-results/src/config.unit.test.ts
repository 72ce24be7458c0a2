import { ConfigError, loadConfig } from '@verdict/platform';
import { TestResultsConfig } from './config';
import { isBulkIngest } from './module';

const required = {
  DATABASE_URL: 'postgres://verdict:verdict@127.0.0.1:5432/verdict',
  KAFKA_BROKERS: '127.0.0.1:9092',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
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

describe('the bulk ingest requests a process admits a few at a time', () => {
  it('when VERDICT_INGEST_CONCURRENCY is not set, then 4 are admitted at once; 0 refuses to start', () => {
    expect(loadConfig(TestResultsConfig, required).ingestConcurrency).toBe(4);
    expect(
      loadConfig(TestResultsConfig, { ...required, VERDICT_INGEST_CONCURRENCY: '8' }).ingestConcurrency,
    ).toBe(8);
    expect(() => loadConfig(TestResultsConfig, { ...required, VERDICT_INGEST_CONCURRENCY: '0' })).toThrow(
      /VERDICT_INGEST_CONCURRENCY/,
    );
  });

  it('when a request posts a result batch or an import, then it counts; anything else does not', () => {
    expect(isBulkIngest({ method: 'POST', path: '/p1/test-runs/r1/results' })).toBe(true);
    expect(isBulkIngest({ method: 'POST', path: '/p1/imports/playwright' })).toBe(true);
    expect(isBulkIngest({ method: 'POST', path: '/p1/imports/junit' })).toBe(true);
    expect(isBulkIngest({ method: 'GET', path: '/p1/test-runs/r1/results' })).toBe(false);
    expect(isBulkIngest({ method: 'POST', path: '/p1/test-runs' })).toBe(false);
    expect(isBulkIngest({ method: 'POST', path: '/p1/test-runs/r1/finish' })).toBe(false);
    expect(isBulkIngest({ method: 'POST', path: '/p1/test-runs/r1/artifacts' })).toBe(false);
  });
});
