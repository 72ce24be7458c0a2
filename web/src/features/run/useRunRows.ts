/** The run's rows as shown: filtered by the URL's search, with the files opened and the groups closed by hand. */
import { useDeferredValue, useMemo, useState } from 'react';
import type { RunDetail } from '../../api/queries';
import { platformsOf, runRows } from '../../components/runRows';
import type { RunSearch } from './search';
import { toggled } from './toggled';

export function useRunRows(specs: RunDetail['specs'] | undefined, search: RunSearch) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const text = useDeferredValue(search.q);
  const platforms = useMemo(() => (specs ? platformsOf(specs) : []), [specs]);
  const rows = useMemo(
    () =>
      specs
        ? runRows(specs, { status: search.status, platform: search.platform, text }, expanded, collapsed)
        : [],
    [specs, search.status, search.platform, text, expanded, collapsed],
  );
  return {
    rows,
    platforms,
    collapsed,
    toggleFile: (file: string) => setExpanded((set) => toggled(set, file)),
    toggleGroup: (key: string) => setCollapsed((set) => toggled(set, key)),
  };
}

export type RunRowsState = ReturnType<typeof useRunRows>;
