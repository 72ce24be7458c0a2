export * from './errors';
export * from './envelope';
export * from './events';
export * from './system';
export * from './identity';
export * from './gateway';
