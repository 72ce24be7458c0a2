/** The run page's filter bar: outcome, platform (when the run has several) and text (`/` focuses it). */
import { Card, Group, SegmentedControl, Select, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import type { RunFailures } from '../../api/queries';
import { VERDICT_ORDER, VERDICTS } from '../../components/VerdictBadge';
import { RUN_FILTERS, type RunSearch } from './search';
import type { RunSearchState } from './useRunSearch';

const OUTCOMES = [
  { value: 'all', label: 'All' },
  ...RUN_FILTERS.map((value) => ({ value, label: value[0]!.toUpperCase() + value.slice(1) })),
];

const COUNT_OF = {
  new: 'new',
  'failing-on-base': 'failingOnBase',
  'known-flaky': 'knownFlaky',
  quarantined: 'quarantined',
} as const;

/** The failures' verdicts against the run's base, with how many failures have each. */
function VerdictFilter({
  value,
  failures,
  onChange,
}: {
  value: RunSearch['verdict'];
  failures: RunFailures;
  onChange: (verdict: RunSearch['verdict']) => void;
}) {
  const data = VERDICT_ORDER.map((verdict) => ({
    value: verdict,
    label: `${VERDICTS[verdict].label} (${failures.counts[COUNT_OF[verdict]]})`,
  }));
  return (
    <Select
      aria-label="Verdict"
      placeholder={`Every verdict vs ${failures.baseBranch}`}
      size="xs"
      data={data}
      value={value ?? null}
      clearable
      onChange={(next) => onChange((next ?? undefined) as RunSearch['verdict'])}
      w={230}
    />
  );
}

export function RunFilters({
  filters,
  platforms,
  failures,
}: {
  filters: RunSearchState;
  platforms: string[];
  failures?: RunFailures | null | undefined;
}) {
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
        {failures && (failures.items.length > 0 || search.verdict) ? (
          <VerdictFilter
            value={search.verdict}
            failures={failures}
            onChange={(verdict) => update({ verdict })}
          />
        ) : null}
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
