export * from './app';
export * from './errors';
export * from './operational';
export * from './requestId';
export * from './respond';
export * from './validate';
export * from './openapi';
export * from './admission';
