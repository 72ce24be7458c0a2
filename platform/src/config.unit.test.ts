import path from 'node:path';
import { z } from 'zod';
import {
  blobDirOf,
  blobStoreEnv,
  brokerList,
  ConfigError,
  distributedProcessEnv,
  envIntegerList,
  loadConfig,
} from './config';

const Config = z.object({ ...distributedProcessEnv(8081) });
const complete = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  KAFKA_BROKERS: '127.0.0.1:9092, 127.0.0.1:9093',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
  VERDICT_INTERNAL_SECRET: 'x'.repeat(32),
};

describe('the configuration of a distributed process', () => {
  it('when only the servers and the secret are set, then the port, host and log level take their defaults', () => {
    expect(loadConfig(Config, complete)).toMatchObject({ PORT: 8081, HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  });

  it('when a required variable is not set, then the error says it is required', () => {
    const { DATABASE_URL: _unset, ...env } = complete;
    expect(() => loadConfig(Config, env)).toThrow('DATABASE_URL: is required');
  });

  it('when SCHEMA_REGISTRY_URL is not set, then the process refuses to start: the distributed mode frames every event through the registry', () => {
    const { SCHEMA_REGISTRY_URL: _unset, ...env } = complete;
    expect(() => loadConfig(Config, env)).toThrow('SCHEMA_REGISTRY_URL: is required');
  });

  it.each([
    ['PORT', '1e4'],
    ['PORT', ''],
    ['PORT', '0x1f90'],
  ])('when %s is %j, then it is refused: integers are decimal digits', (name, value) => {
    expect(() => loadConfig(Config, { ...complete, [name]: value })).toThrow(`${name}: expected an integer`);
  });

  it.each([
    ['DATABASE_URL', { ...complete, DATABASE_URL: 'mysql://x' }],
    ['KAFKA_BROKERS', { ...complete, KAFKA_BROKERS: '' }],
    ['SCHEMA_REGISTRY_URL', { ...complete, SCHEMA_REGISTRY_URL: '127.0.0.1:18081' }],
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

describe('the blob store variables', () => {
  const Blobs = z.object({ ...blobStoreEnv });

  it('when VERDICT_BLOB_DIR is unset, then blobs live under the data folder, as an absolute path', () => {
    const env = loadConfig(Blobs, { VERDICT_URL_SIGNING_SECRET: 's'.repeat(32), VERDICT_DATA_DIR: 'data' });
    expect(blobDirOf(env)).toBe(path.resolve('data', 'blobs'));
    expect(env.VERDICT_ARTIFACT_MAX_BYTES).toBe(100 * 1024 * 1024);
  });

  it('when VERDICT_BLOB_DIR is set, then it wins', () => {
    const env = loadConfig(Blobs, {
      VERDICT_URL_SIGNING_SECRET: 's'.repeat(32),
      VERDICT_BLOB_DIR: '/srv/blobs',
    });
    expect(blobDirOf(env)).toBe('/srv/blobs');
  });
});

describe('a list of integers (the webhook retry delays)', () => {
  const Delays = z.object({ DELAYS: envIntegerList('60000,300000') });

  it('when unset, then the default; when set, then each entry, trimmed', () => {
    expect(loadConfig(Delays, {}).DELAYS).toEqual([60_000, 300_000]);
    expect(loadConfig(Delays, { DELAYS: '500, 1000' }).DELAYS).toEqual([500, 1_000]);
  });

  it.each(['500,,500', '500,', ',500', '', 'abc', '-1,500', '1e3', '1.5'])(
    'when it is %j, then the process refuses to start, naming the variable',
    (value) => {
      expect(() => loadConfig(Delays, { DELAYS: value })).toThrow(ConfigError);
      expect(() => loadConfig(Delays, { DELAYS: value })).toThrow(/DELAYS/);
    },
  );
});
