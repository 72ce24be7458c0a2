import { z } from 'zod';
import { brokerList, ConfigError, distributedProcessEnv, loadConfig } from './config';

const Config = z.object({ ...distributedProcessEnv(8081) });
const complete = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  KAFKA_BROKERS: '127.0.0.1:9092, 127.0.0.1:9093',
  VERDICT_INTERNAL_SECRET: 'x'.repeat(32),
};

describe('the configuration of a distributed process', () => {
  it('when only the servers and the secret are set, then the port, host and log level take their defaults', () => {
    expect(loadConfig(Config, complete)).toMatchObject({ PORT: 8081, HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  });

  it.each([
    ['DATABASE_URL', { ...complete, DATABASE_URL: 'mysql://x' }],
    ['KAFKA_BROKERS', { ...complete, KAFKA_BROKERS: '' }],
    ['VERDICT_INTERNAL_SECRET', { ...complete, VERDICT_INTERNAL_SECRET: 'short' }],
    ['PORT', { ...complete, PORT: '70000' }],
  ])('when %s is invalid, then the process refuses to start naming it', (name, env) => {
    expect(() => loadConfig(Config, env)).toThrow(ConfigError);
    expect(() => loadConfig(Config, env)).toThrow(name);
  });

  it('when KAFKA_BROKERS lists several brokers, then each is trimmed', () => {
    expect(brokerList(complete.KAFKA_BROKERS)).toEqual(['127.0.0.1:9092', '127.0.0.1:9093']);
  });
});
