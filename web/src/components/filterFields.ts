import type { ComboboxData } from '@mantine/core';

/**
 * One control of a filter bar, described: a text typed (the URL follows once typing pauses), a value picked
 * among options, or a number in a range. `key` is the URL's search parameter it sets.
 */
export type FilterField<K extends string = string> =
  | {
      kind: 'text';
      key: K;
      label: string;
      placeholder: string;
      width: number;
      /** The page's main search: a magnifier in it, and `/` focuses it. */
      main?: boolean;
    }
  | {
      kind: 'select';
      key: K;
      label: string;
      placeholder: string;
      options: ComboboxData;
      width: number;
      searchable?: boolean;
    }
  | { kind: 'number'; key: K; label: string; min: number; max: number; fallback: number; width: number };
