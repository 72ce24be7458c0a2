export * from './app';
export { parseStorableJson, storable, storableText } from './storable';
export * from './errors';
export * from './operational';
export * from './requestId';
export * from './respond';
export * from './validate';
export * from './openapi';
export * from './admission';
