/**
 * Typed search parameters: each page reads only the values it understands, and a value it does not
 * understand reads as absent, so a hand-edited or stale link still opens the page. Pages return every key
 * (absent ones as undefined): the router keeps raw values of keys a page leaves out.
 */
export type Raw = Record<string, unknown>;

/** The periods the analytics and flaky pages offer. */
export const ANALYTICS_RANGES = ['7d', '14d', '30d', '60d', '90d'] as const;

export const text = (raw: Raw, key: string): string | undefined => {
  const value = raw[key];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

export const integer = (raw: Raw, key: string, min = 0): number | undefined => {
  const value = typeof raw[key] === 'string' ? Number(raw[key]) : raw[key];
  return typeof value === 'number' && Number.isInteger(value) && value >= min ? value : undefined;
};

export function oneOf<const T extends readonly string[]>(
  raw: Raw,
  key: string,
  values: T,
): T[number] | undefined {
  const value = raw[key];
  return typeof value === 'string' && (values as readonly string[]).includes(value) ? value : undefined;
}
