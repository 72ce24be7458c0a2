export * from './checkpoints';
export * from './outboxRelay';
