/**
 * Analytics over a date range of the API (7 to 90 days): the summary of spec §4.7 (runs, flakiness, new
 * failures, durations) and execution performance as charts (durations over time, slowest tests and spec
 * files, platforms), with the period's PDF report to download.
 */
import {
  Button,
  Card,
  Grid,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconFileTypePdf } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { Suspense } from 'react';
import { filtersQuery, summaryQuery, type AnalyticsSummary } from '../../api/queries';
import { performanceQuery } from './api';
import { useReportDownload } from '../../api/reports';
import { useCanWrite } from '../../api/role';
import { BarsChart, TrendChart } from '../../charts';
import { Figure } from '../../components/Figure';
import { formatDuration, formatNumber, formatPercent } from '../../components/format';
import { ErrorState, LoadingState } from '../../components/states';
import { ANALYTICS_RANGES } from '../../search';

const route = getRouteApi('/signed-in/projects/$projectId/analytics');

type Range = (typeof ANALYTICS_RANGES)[number];

function PeriodPdf({ projectId, range }: { projectId: string; range: Range }) {
  const download = useReportDownload(projectId, `verdict-report-${range}.pdf`);
  return (
    <Tooltip label={download.isError ? (download.error as Error).message : `PDF report of the last ${range}`}>
      <Button
        size="xs"
        variant="default"
        color={download.isError ? 'red' : undefined}
        leftSection={<IconFileTypePdf size={14} />}
        loading={download.isPending}
        onClick={() => download.mutate({ dateRange: range })}
      >
        PDF report
      </Button>
    </Tooltip>
  );
}

function UniqueTests({
  title,
  tests,
  empty,
}: {
  title: string;
  tests: AnalyticsSummary['uniqueNewFailures'];
  empty: string;
}) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {title} ({tests.length})
      </Title>
      {tests.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Test</Table.Th>
              <Table.Th ta="right">Days</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tests.slice(0, 15).map((test) => (
              <Table.Tr key={`${test.filePath}:${test.title}`}>
                <Table.Td maw={360}>
                  <Text size="sm" lineClamp={1}>
                    {test.title}
                  </Text>
                  <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
                    {test.filePath}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">{test.failedInDays}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}

export function AnalyticsPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/analytics' });
  const range = search.range ?? '30d';
  const canWrite = useCanWrite(projectId);
  const filters = useQuery(filtersQuery(projectId));
  const summary = useQuery(
    summaryQuery(projectId, {
      dateRange: range,
      days: Number(range.slice(0, -1)),
      ...(search.environment ? { environment: search.environment } : {}),
      ...(search.environment && search.branch ? { environmentBranches: search.branch } : {}),
    }),
  );
  const performance = useQuery(
    performanceQuery(projectId, {
      dateRange: range,
      limit: 10,
      ...(search.environment ? { environment: search.environment } : {}),
      ...(search.branch ? { branch: search.branch } : {}),
    }),
  );
  const setSearch = (changes: Partial<typeof search>) =>
    void navigate({ search: (previous) => ({ ...previous, ...changes }) });

  return (
    <Stack>
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
      {summary.isPending ? (
        <LoadingState label="Loading the summary…" rows={3} />
      ) : summary.isError ? (
        <ErrorState error={summary.error} onRetry={() => void summary.refetch()} />
      ) : (
        <SimpleGrid cols={{ base: 2, md: 4, lg: 7 }} spacing="xs">
          <Figure
            label="Runs"
            value={formatNumber(summary.data.metrics.totalRuns)}
            hint={`${summary.data.metrics.avgRunsPerDay} a day`}
          />
          <Figure
            label="Run pass rate"
            value={formatPercent(
              summary.data.metrics.totalRuns
                ? (100 * summary.data.metrics.passedRuns) / summary.data.metrics.totalRuns
                : null,
            )}
            hint={`${summary.data.metrics.failedRuns} failed`}
          />
          <Figure label="Test cases" value={formatNumber(summary.data.metrics.totalTestCases)} />
          <Figure
            label="Flaky"
            value={formatNumber(summary.data.metrics.flaky.totalFlakyTestCases)}
            hint={`${formatPercent(summary.data.metrics.flaky.flakinessPercentage)} of test cases`}
            tone={summary.data.metrics.flaky.totalFlakyTestCases ? 'orange' : undefined}
          />
          <Figure
            label="New failures"
            value={formatNumber(summary.data.metrics.newFailures.totalNewFailures)}
            hint={`${formatPercent(summary.data.metrics.newFailures.newFailuresPercentage)} of test cases`}
            tone={summary.data.metrics.newFailures.totalNewFailures ? 'red' : undefined}
          />
          <Figure label="Avg run" value={formatDuration(summary.data.metrics.avgExecutionTime)} />
          <Figure
            label="Slow tests take"
            value={`> ${formatDuration(summary.data.metrics.durationThresholds.slow)}`}
            hint={`fast: under ${formatDuration(summary.data.metrics.durationThresholds.fast)}`}
          />
        </SimpleGrid>
      )}
      {performance.isPending ? (
        <Skeleton height={260} />
      ) : performance.isError ? (
        <ErrorState error={performance.error} onRetry={() => void performance.refetch()} />
      ) : (
        <>
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              Durations over time
            </Title>
            <Suspense fallback={<Skeleton height={220} />}>
              <TrendChart
                data={performance.data.durationTrend.map((point) => ({
                  date: point.date.slice(5, 10),
                  avgRunDurationMs: point.avgRunDurationMs,
                  avgTestDurationMs: point.avgTestDurationMs,
                }))}
                series={[
                  { name: 'avgRunDurationMs', label: 'Average run', color: 'blue.6' },
                  { name: 'avgTestDurationMs', label: 'Average test', color: 'grape.6' },
                ]}
                format={formatDuration}
              />
            </Suspense>
          </Card>
          <Grid>
            <Grid.Col span={{ base: 12, lg: 6 }}>
              <Card withBorder>
                <Title order={2} size="h4" mb="xs">
                  Slowest tests (average)
                </Title>
                {performance.data.slowestTests.length === 0 ? (
                  <Text size="sm" c="dimmed">
                    No execution in this range.
                  </Text>
                ) : (
                  <Suspense fallback={<Skeleton height={200} />}>
                    <BarsChart
                      data={performance.data.slowestTests.map((test) => ({
                        name: test.fullTitle,
                        value: test.avgDurationMs,
                      }))}
                      color="blue.6"
                      format={formatDuration}
                      label="Average duration"
                    />
                  </Suspense>
                )}
              </Card>
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 6 }}>
              <Card withBorder>
                <Title order={2} size="h4" mb="xs">
                  Slowest spec files (total)
                </Title>
                {performance.data.slowestSpecs.length === 0 ? (
                  <Text size="sm" c="dimmed">
                    No execution in this range.
                  </Text>
                ) : (
                  <Suspense fallback={<Skeleton height={200} />}>
                    <BarsChart
                      data={performance.data.slowestSpecs.map((spec) => ({
                        name: spec.filePath,
                        value: spec.totalDurationMs,
                      }))}
                      color="violet.6"
                      format={formatDuration}
                      label="Total duration"
                    />
                  </Suspense>
                )}
              </Card>
            </Grid.Col>
          </Grid>
          {performance.data.platforms.length > 0 ? (
            <Card withBorder>
              <Title order={2} size="h4" mb="xs">
                Platforms
              </Title>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Platform</Table.Th>
                    <Table.Th ta="right">Executions</Table.Th>
                    <Table.Th ta="right">Average duration</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {performance.data.platforms.map((platform) => (
                    <Table.Tr key={platform.platform}>
                      <Table.Td>{platform.platform || '(none)'}</Table.Td>
                      <Table.Td ta="right">{formatNumber(platform.executions)}</Table.Td>
                      <Table.Td ta="right">{formatDuration(platform.avgDurationMs)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Card>
          ) : null}
        </>
      )}
      {summary.data ? (
        <Grid>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <UniqueTests
              title="New failures"
              tests={summary.data.uniqueNewFailures}
              empty="No test started failing in this range."
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <UniqueTests
              title="Flaky tests"
              tests={summary.data.uniqueFlakyTests}
              empty="No flaky test in this range."
            />
          </Grid.Col>
        </Grid>
      ) : null}
    </Stack>
  );
}
