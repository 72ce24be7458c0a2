// Entry point @verdict/platform/pglite: the embedded mode's database. Only this file loads PGlite.
export { createPGliteDatabase } from '../sql/pglite';
export type { PGliteDatabaseOptions } from '../sql/pglite';
export { createSqlEventStore } from './sqlEventStore';
