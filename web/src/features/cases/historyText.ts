/** How the case editor's history shows a changed value: as text, at most 80 characters, `—` when empty. */
export function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? '—' : text.length > 80 ? `${text.slice(0, 77)}…` : text || '—';
}
