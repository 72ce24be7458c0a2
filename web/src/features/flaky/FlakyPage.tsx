/**
 * Flaky tests: the test cases with the highest flaky rate over a window (the explorer sorted by flaky
 * rate), each with its rate, its last flaky day and a day-by-day strip of when it was flaky (from the
 * analytics summary's flaky tests).
 */
import { Badge, Box, Group, SegmentedControl, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useMemo } from 'react';
import { AnchorLink } from '../../components/AnchorLink';
import { explorerQuery, summaryQuery } from '../../api/queries';
import { formatPercent } from '../../components/format';
import { ListPages } from '../../components/ListPages';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { badgeToneVars } from '../../components/Tone';
import { ANALYTICS_RANGES } from '../../search';
import { daysBetween, flakyKey, lastDay } from './flakyTrend';
import classes from './FlakyPage.module.css';

const route = getRouteApi('/signed-in/projects/$projectId/flaky');

const PAGE_SIZE = 50;

export function FlakyPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/flaky' });
  const range = search.range ?? '30d';
  const days = Number(range.slice(0, -1));
  const explorer = useQuery({
    ...explorerQuery(projectId, {
      page: search.page ?? 1,
      limit: PAGE_SIZE,
      sortBy: 'flakyRate',
      order: 'desc',
      days,
    }),
    placeholderData: keepPreviousData,
  });
  const summary = useQuery(summaryQuery(projectId, { dateRange: range, days }));
  const flakyDays = useMemo(
    () =>
      new Map(
        (summary.data?.uniqueFlakyTests ?? []).map((test) => [
          flakyKey(test.filePath, test.title),
          test.dates,
        ]),
      ),
    [summary.data],
  );
  const windowDays = summary.data ? daysBetween(summary.data.range.from, summary.data.range.to) : [];
  // Sorted by flaky rate: the list ends where the rate falls to zero.
  const flaky = explorer.data?.testCases.filter((test) => test.flakyRate > 0) ?? [];

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Flaky tests
        </Title>
        <SegmentedControl
          aria-label="Window"
          size="xs"
          value={range}
          data={[...ANALYTICS_RANGES]}
          onChange={(value) => void navigate({ search: { range: value as typeof range } })}
        />
      </Group>
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
          <Table.ScrollContainer minWidth={900}>
            <Table striped highlightOnHover aria-label="Flaky tests">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Test</Table.Th>
                  <Table.Th ta="right">Flaky rate</Table.Th>
                  <Table.Th ta="right">Fail rate</Table.Th>
                  <Table.Th ta="right">Executions</Table.Th>
                  <Table.Th>Last flaky</Table.Th>
                  <Table.Th>Trend ({days} days)</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {flaky.map((test) => {
                  const dates = flakyDays.get(flakyKey(test.specName, test.title)) ?? [];
                  const flakyOn = new Set(dates.map((date) => date.slice(0, 10)));
                  return (
                    <Table.Tr key={test.testCaseId}>
                      <Table.Td maw={420}>
                        <AnchorLink
                          to="/projects/$projectId/runs/$runId/tests/$caseId"
                          params={{ projectId, runId: test.lastRun.testRunId, caseId: test.testCaseId }}
                          size="sm"
                          lineClamp={1}
                        >
                          {test.fullTitle}
                        </AnchorLink>
                        <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
                          {test.specName}
                        </Text>
                      </Table.Td>
                      <Table.Td ta="right">
                        <Badge color="orange" variant="light" vars={badgeToneVars('orange')}>
                          {formatPercent(test.flakyRate)}
                        </Badge>
                      </Table.Td>
                      <Table.Td ta="right">{formatPercent(test.failureRate)}</Table.Td>
                      <Table.Td ta="right">{test.executions}</Table.Td>
                      <Table.Td>
                        <Text size="sm">{lastDay(dates) ?? '—'}</Text>
                      </Table.Td>
                      <Table.Td>
                        {summary.isPending ? null : (
                          <Box
                            className={classes.strip}
                            role="img"
                            aria-label={`Flaky on ${flakyOn.size} of the last ${windowDays.length} days`}
                          >
                            {windowDays.map((day) => (
                              <Tooltip
                                key={day}
                                label={`${day}: ${flakyOn.has(day) ? 'flaky' : 'not flaky'}`}
                              >
                                <span
                                  className={classes.day}
                                  data-flaky={flakyOn.has(day) ? 'true' : undefined}
                                />
                              </Tooltip>
                            ))}
                          </Box>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
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
