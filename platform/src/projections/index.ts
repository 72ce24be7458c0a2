export * from './projector';
export * from './waitFor';
export * from './readStore';
