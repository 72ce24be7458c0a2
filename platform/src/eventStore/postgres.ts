// Entry point @verdict/platform/postgres: the distributed mode's database. Only this file loads `pg`.
export { createPostgresDatabase } from '../sql/postgres';
export type { PostgresDatabaseOptions } from '../sql/postgres';
export { createSqlEventStore } from './sqlEventStore';
