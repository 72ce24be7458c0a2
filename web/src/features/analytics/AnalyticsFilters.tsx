/** The analytics page's title and its filters: date range, environment, branch; the period's PDF. */
import { Group, SegmentedControl, Select, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { filtersQuery } from '../../api/queries';
import { useCanWrite } from '../../api/role';
import { ANALYTICS_RANGES } from '../../search';
import type { AnalyticsSearch, Range } from './filters';
import { PeriodPdf } from './PeriodPdf';

interface Props {
  projectId: string;
  range: Range;
  search: AnalyticsSearch;
  setSearch: (changes: Partial<AnalyticsSearch>) => void;
}

export function AnalyticsFilters({ projectId, range, search, setSearch }: Props) {
  const canWrite = useCanWrite(projectId);
  const filters = useQuery(filtersQuery(projectId));
  return (
    <Group justify="space-between">
      <Title order={1} size="h2">
        Analytics
      </Title>
      <Group gap="xs">
        <SegmentedControl
          aria-label="Date range"
          size="xs"
          value={range}
          data={[...ANALYTICS_RANGES]}
          onChange={(value) => setSearch({ range: value as Range })}
        />
        <Select
          aria-label="Environment"
          placeholder="Every environment"
          size="xs"
          data={filters.data?.environments ?? []}
          value={search.environment ?? null}
          onChange={(value) => setSearch({ environment: value ?? undefined })}
          clearable
          w={170}
        />
        <Select
          aria-label="Branch"
          placeholder="Every branch"
          size="xs"
          data={filters.data?.branches ?? []}
          value={search.branch ?? null}
          onChange={(value) => setSearch({ branch: value ?? undefined })}
          clearable
          searchable
          w={170}
        />
        {canWrite ? <PeriodPdf projectId={projectId} range={range} /> : null}
      </Group>
    </Group>
  );
}
