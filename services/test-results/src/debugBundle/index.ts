// The debug bundle's pure parts (spec §2 "Debug bundle", §4.2): the query rules, the payload schemas,
// the views, the failure window and links, and the Markdown rendering. Storage-free; the route wires
// them to the read models.
export * from './types';
export * from './params';
export * from './test/attempt';
export * from './views';
export * from './failureWindow';
export * from './retryCommand';
export * from './links';
export * from './markdown';
