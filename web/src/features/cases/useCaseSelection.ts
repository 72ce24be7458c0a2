/** The cases of the library's page a writer selected for the bulk actions. */
import { useCallback, useState } from 'react';

export function useCaseSelection() {
  const [selected, set] = useState<ReadonlySet<string>>(new Set());
  // A change of the list empties the selection; an empty one stays as it is (no render for nothing).
  const clear = useCallback(() => set((previous) => (previous.size === 0 ? previous : new Set())), []);
  // Stable, so that a row re-renders only when its case or its selection changes (CaseRow is memoised).
  const toggle = useCallback(
    (id: string) =>
      set((previous) => {
        const next = new Set(previous);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  return { selected, set, clear, toggle };
}

export type CaseSelection = ReturnType<typeof useCaseSelection>;
