export * from './types';
export * from './filesystem';
export * from './signedUrl';
