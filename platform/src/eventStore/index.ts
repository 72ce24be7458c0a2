// The event store port and what every service builds on it. The adapters' entry points are
// @verdict/platform/postgres and @verdict/platform/pglite, so a process loads only the driver it uses.
export * from './types';
export { createSqlEventStore } from './sqlEventStore';
export type { SqlEventStoreOptions } from './sqlEventStore';
export { aggregateStream, createCommandHandler, createNumberAllocator, handleCommand } from './handleCommand';
export type {
  CommandHandler,
  CommandHandlerOptions,
  Decider,
  DecidedEvent,
  HandleCommandResult,
  HandleOptions,
  NumberAllocator,
  NumberAllocatorOptions,
} from './handleCommand';
