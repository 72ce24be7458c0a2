export * from './token';
export * from './middleware';
