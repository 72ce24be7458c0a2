export * from './projector';
export * from './waitFor';
