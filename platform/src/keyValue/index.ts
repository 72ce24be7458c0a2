// The Redis adapter is not re-exported: it lives behind `@verdict/platform/redis` so that the embedded mode
// never loads the redis client.
export * from './types';
export * from './memory';
export * from './sql';
