/** The run page's filter bar: outcome, platform (when the run has several) and text (`/` focuses it). */
import { Card, Group, SegmentedControl, Select, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { RUN_FILTERS } from './search';
import type { RunSearchState } from './useRunSearch';

const OUTCOMES = [
  { value: 'all', label: 'All' },
  ...RUN_FILTERS.map((value) => ({ value, label: value[0]!.toUpperCase() + value.slice(1) })),
];

export function RunFilters({ filters, platforms }: { filters: RunSearchState; platforms: string[] }) {
  const { search, update, setText, searchInput } = filters;
  return (
    <Card withBorder padding="sm">
      <Group gap="sm" align="flex-end" role="search">
        <SegmentedControl
          aria-label="Outcome"
          size="xs"
          value={search.status ?? 'all'}
          data={OUTCOMES}
          onChange={(value) =>
            update({ status: value === 'all' ? undefined : (value as (typeof RUN_FILTERS)[number]) })
          }
        />
        {platforms.length > 1 ? (
          <Select
            aria-label="Platform"
            placeholder="Every platform"
            size="xs"
            data={platforms}
            value={search.platform ?? null}
            clearable
            onChange={(value) => update({ platform: value ?? undefined })}
            w={180}
          />
        ) : null}
        <TextInput
          ref={searchInput}
          aria-label="Filter by text"
          placeholder="Filter by title, file or error (press /)"
          size="xs"
          leftSection={<IconSearch size={14} />}
          defaultValue={search.q ?? ''}
          onChange={(event) => setText(event.currentTarget.value)}
          style={{ flex: 1 }}
          miw={220}
        />
      </Group>
    </Card>
  );
}
