import { getRouteApi } from '@tanstack/react-router';
/** The project at a glance (API.md's dashboard): totals, the last 30 days, the pass-rate trend, recent runs, worst tests. */
import { Card, Grid, Group, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { AnchorLink } from '../../components/AnchorLink';
import { type Dashboard } from '../../api/queries';
import { dashboardQuery } from './api';
import { TrendChart } from '../../charts';
import { RunStatus, StatCounts } from '../../components/badges';
import { Figure } from '../../components/Figure';
import { formatAgo, formatDuration, formatNumber, formatPercent, formatTime } from '../../components/format';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';

const route = getRouteApi('/signed-in/projects/$projectId/dashboard');

function RankedList({
  title,
  tests,
  projectId,
  unit,
}: {
  title: string;
  tests: Dashboard['topFlakyTests'];
  projectId: string;
  unit: string;
}) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {tests.length === 0 ? (
        <Text size="sm" c="dimmed">
          None in the last 30 days.
        </Text>
      ) : (
        <Table>
          <Table.Tbody>
            {tests.map((test) => (
              <Table.Tr key={test.testCaseId}>
                <Table.Td maw={320}>
                  <AnchorLink
                    to="/projects/$projectId/explorer"
                    params={{ projectId }}
                    search={{ search: test.title }}
                    size="sm"
                    lineClamp={1}
                  >
                    {test.title}
                  </AnchorLink>
                  <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
                    {test.filePath}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  <Text size="sm" fw={600}>
                    {formatPercent(test.rate)}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {test.count} of {test.executions} {unit}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}

export function DashboardPage() {
  const { projectId } = route.useParams();
  const dashboard = useQuery(dashboardQuery(projectId));
  if (dashboard.isPending) return <LoadingState label="Loading the dashboard…" />;
  if (dashboard.isError)
    return <ErrorState error={dashboard.error} onRetry={() => void dashboard.refetch()} />;
  const data = dashboard.data;
  const last = data.last30Days;
  return (
    <Stack>
      <Title order={1} size="h2">
        Dashboard
      </Title>
      {data.totals.runs === 0 ? (
        <EmptyState title="Nothing to show yet">The dashboard fills in as runs are reported.</EmptyState>
      ) : (
        <>
          <SimpleGrid cols={{ base: 2, md: 3, lg: 6 }} spacing="xs">
            <Figure
              label="Runs, 30 days"
              value={formatNumber(last.runs)}
              hint={`${formatNumber(data.totals.runs)} in all`}
            />
            <Figure
              label="Failed runs"
              value={formatNumber(last.failedRuns)}
              hint={`${formatNumber(last.passedRuns)} passed`}
              tone={last.failedRuns ? 'red' : undefined}
            />
            <Figure label="Pass rate" value={formatPercent(last.passRate)} hint="of executions, 30 days" />
            <Figure
              label="Flaky rate"
              value={formatPercent(last.flakyRate)}
              hint="of executions, 30 days"
              tone={last.flakyRate ? 'orange' : undefined}
            />
            <Figure label="Avg run" value={formatDuration(last.avgRunDurationMs)} />
            <Figure
              label="Test cases"
              value={formatNumber(data.totals.testCases)}
              hint={`${formatNumber(data.totals.executions)} executions`}
            />
          </SimpleGrid>
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              Pass rate, last 30 days
            </Title>
            <Suspense fallback={<Skeleton height={220} />}>
              <TrendChart
                data={data.passRateTrend.map((point) => ({
                  date: point.date.slice(5, 10),
                  passRate: point.passRate,
                  flakyRate: point.flakyRate,
                }))}
                series={[
                  { name: 'passRate', label: 'Pass rate', color: 'teal.6' },
                  { name: 'flakyRate', label: 'Flaky rate', color: 'orange.6' },
                ]}
                format={(value) => `${Math.round(value)}%`}
                domain={[0, 100]}
              />
            </Suspense>
          </Card>
          <Grid>
            <Grid.Col span={{ base: 12, lg: 6 }}>
              <RankedList title="Most flaky" tests={data.topFlakyTests} projectId={projectId} unit="flaky" />
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 6 }}>
              <RankedList
                title="Most failing"
                tests={data.topFailingTests}
                projectId={projectId}
                unit="failed"
              />
            </Grid.Col>
          </Grid>
          <Card withBorder>
            <Group justify="space-between" mb="xs">
              <Title order={2} size="h4">
                Recent runs
              </Title>
              <AnchorLink to="/projects/$projectId/runs" params={{ projectId }} size="sm">
                All runs
              </AnchorLink>
            </Group>
            <Table.ScrollContainer minWidth={720}>
              <Table highlightOnHover>
                <Table.Tbody>
                  {data.recentRuns.map((run) => (
                    <Table.Tr key={run.id}>
                      <Table.Td>
                        <AnchorLink
                          to="/projects/$projectId/runs/$runId"
                          params={{ projectId, runId: run.id }}
                          size="sm"
                          fw={600}
                        >
                          #{run.counter} {run.title ?? ''}
                        </AnchorLink>
                      </Table.Td>
                      <Table.Td>
                        <RunStatus status={run.status} outcome={run.outcome} />
                      </Table.Td>
                      <Table.Td>
                        <StatCounts stats={run.stats} />
                      </Table.Td>
                      <Table.Td>{run.branch ?? '—'}</Table.Td>
                      <Table.Td>
                        <Text size="sm" title={formatTime(run.startedAt)}>
                          {formatAgo(run.startedAt)}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Card>
        </>
      )}
    </Stack>
  );
}
