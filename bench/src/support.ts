import { randomBytes } from 'node:crypto';
export { createSqlEventStore, newId } from '@verdict/platform';

export const uniqueNameForBench = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;
