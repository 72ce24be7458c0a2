export * from './store';
export * from './bus';
