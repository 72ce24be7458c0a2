// The service kit. Adapters that pull in an infrastructure client (pg, PGlite, kafkajs, redis) have their
// own entry points (@verdict/platform/postgres, /pglite, /kafka, /redis) so a process loads only its own.
export * from './errors';
export * from './clock';
export * from './ids';
export * from './order';
export * from './logging';
export * from './config';
export * from './sql/sharedObjects';
export * from './sql/types';
export * from './eventStore/index';
export * from './eventBus/index';
export * from './deadLetters/index';
export * from './keyValue/index';
export * from './relay/index';
export * from './projections/index';
export * from './http/index';
export * from './process';
export * from './rateLimit/index';
export * from './internalAuth/index';
export * from './blobStore/index';
