/**
 * The event bus port and its embedded adapter. The Kafka adapter is a separate entry point,
 * `@verdict/platform/kafka`, so that the embedded process never loads kafkajs.
 */
export * from './types';
export { createInProcessBus, type InProcessBusOptions } from './inProcess';
