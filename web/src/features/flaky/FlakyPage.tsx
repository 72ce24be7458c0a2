/**
 * Flaky tests: the test cases with the highest flaky rate over a window (the explorer sorted by flaky
 * rate), each with its rate, its last flaky day and a day-by-day strip of when it was flaky (from the
 * analytics summary's flaky tests).
 */
import { Group, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { ListPages } from '../../components/ListPages';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { ANALYTICS_RANGES } from '../../search';
import { FlakyTable } from './FlakyTable';
import { PAGE_SIZE, useFlakyTests } from './useFlakyTests';

const route = getRouteApi('/signed-in/projects/$projectId/flaky');

type Range = (typeof ANALYTICS_RANGES)[number];

function FlakyHeader({ range, onRange }: { range: Range; onRange: (range: Range) => void }) {
  return (
    <Group justify="space-between">
      <Title order={1} size="h2">
        Flaky tests
      </Title>
      <SegmentedControl
        aria-label="Window"
        size="xs"
        value={range}
        data={[...ANALYTICS_RANGES]}
        onChange={(value) => onRange(value as Range)}
      />
    </Group>
  );
}

export function FlakyPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/flaky' });
  const range = search.range ?? '30d';
  const days = Number(range.slice(0, -1));
  const { explorer, trend } = useFlakyTests(projectId, range, search.page ?? 1);
  // Sorted by flaky rate: the list ends where the rate falls to zero.
  const flaky = explorer.data?.testCases.filter((test) => test.flakyRate > 0) ?? [];

  return (
    <Stack>
      <FlakyHeader range={range} onRange={(value) => void navigate({ search: { range: value } })} />
      <Text size="sm" c="dimmed">
        A test is flaky in a run when it failed, then passed on a retry. The rate is its share of the test’s
        executions over the last {days} days.
      </Text>
      {explorer.isPending ? (
        <LoadingState label="Looking for flaky tests…" />
      ) : explorer.isError ? (
        <ErrorState error={explorer.error} onRetry={() => void explorer.refetch()} />
      ) : flaky.length === 0 ? (
        <EmptyState title={`No flaky test in the last ${days} days`}>
          Every test that passed did so at its first try.
        </EmptyState>
      ) : (
        <>
          <FlakyTable tests={flaky} projectId={projectId} days={days} trend={trend} />
          {explorer.data.testCases.length === PAGE_SIZE || (search.page ?? 1) > 1 ? (
            <ListPages
              total={explorer.data.pagination.total}
              pageSize={PAGE_SIZE}
              page={search.page}
              onPage={(page) => void navigate({ search: (previous) => ({ ...previous, page }) })}
            />
          ) : null}
        </>
      )}
    </Stack>
  );
}
