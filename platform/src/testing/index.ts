export * from './env';
export * from './given';
