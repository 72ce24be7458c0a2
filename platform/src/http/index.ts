export * from './app';
export { parseJsonWithoutNul, withoutNul } from './nul';
export * from './errors';
export * from './operational';
export * from './requestId';
export * from './respond';
export * from './validate';
export * from './openapi';
export * from './admission';
