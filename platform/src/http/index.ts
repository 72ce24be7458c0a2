export * from './app';
export { parseStorableJson, storable, storableText } from './storable';
export { assertJsonDepth, MAX_JSON_DEPTH } from './jsonDepth';
export * from './errors';
export * from './operational';
export * from './requestId';
export * from './respond';
export * from './validate';
export * from './openapi';
export * from './bindRoutes';
export * from './reply';
export * from './admission';
// The metrics registry type, for services that pass one around without depending on prom-client.
export type { Registry } from 'prom-client';
export * from './upload';
