/** The run page's filters as URL search values: reading them, and writing one back (replacing history). */
import { useDebouncedCallback, useHotkeys } from '@mantine/hooks';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useRef } from 'react';
import type { RunSearch } from './search';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId');

export function useRunSearch() {
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/runs/$runId' });
  const searchInput = useRef<HTMLInputElement>(null);
  useHotkeys([['/', () => searchInput.current?.focus()]]);
  const update = (change: Partial<RunSearch>) =>
    void navigate({ search: (previous) => ({ ...previous, ...change }), replace: true });
  const setText = useDebouncedCallback((value: string) => update({ q: value || undefined }), 250);
  return { search, update, setText, searchInput };
}

export type RunSearchState = ReturnType<typeof useRunSearch>;
