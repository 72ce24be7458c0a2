export * from './projector';
export * from './inline';
export * from './waitFor';
export * from './readStore';
