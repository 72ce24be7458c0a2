export * from './routes';
export * from './queries';
