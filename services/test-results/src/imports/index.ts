/**
 * Converters from test-runner reports to result items; pure functions, no I/O.
 */
export { parsePlaywrightReport } from './playwright';
export type { PendingAttachment, PlaywrightImport } from './playwright';
export { DEFAULT_JUNIT_MAX_BYTES, parseJUnitXml } from './junit';
export type { JUnitDialect, JUnitImport, JUnitImportOptions } from './junit';
export { decodeXml } from './xml';
