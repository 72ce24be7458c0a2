import { createHash } from 'node:crypto';

/**
 * A UUID-shaped id derived from its parts (SHA-256), so that the same request or the same automated test
 * always maps to the same id: appends retried with it are found, links made twice are one.
 *
 * @example const eventId = derivedId('mt-number', 'case', caseId);
 */
export function derivedId(...parts: string[]): string {
  const bytes = createHash('sha256').update(JSON.stringify(parts)).digest().subarray(0, 16);
  bytes[6] = 0x80 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The counter-style keys of spec §2: TC-<n> (cases), RUN-<n> (runs), MS-<n> (releases). */
export type KeyPrefix = 'TC' | 'RUN' | 'MS';

export const keyOf = (prefix: KeyPrefix, number: number): string => `${prefix}-${number}`;

/** The number of a key such as `TC-12` (any letter case), or null when `ref` is not one. */
export function numberOfKey(prefix: KeyPrefix, ref: string): number | null {
  const match = new RegExp(`^${prefix}-(\\d{1,9})$`, 'i').exec(ref.trim());
  if (!match) return null;
  const number = Number(match[1]);
  return number >= 1 ? number : null;
}
