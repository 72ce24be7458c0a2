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
