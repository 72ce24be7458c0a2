/**
 * Code point order of two strings: the same on every machine and in every locale, and the order a
 * PostgreSQL `COLLATE "C"` sort gives, so a sort in code and one in either database agree.
 *
 * @example keys.sort(byCodePoint);
 */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
