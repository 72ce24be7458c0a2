/**
 * One error group: its signature, the latest message it was seen with, its counts and days, and the tests
 * and runs it hit, each a link to its page. Range, branch and environment come from the errors list.
 */
import { Card, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { Suspense, useMemo } from 'react';
import { TrendChart } from '../../charts';
import { AnchorLink } from '../../components/AnchorLink';
import { formatNumber, formatTime } from '../../components/format';
import { ErrorState, LoadingState } from '../../components/states';
import { errorGroupQuery, type ErrorGroupDetail } from './api';
import { ErrorRuns, ErrorTests } from './ErrorGroupHits';
import { groupQuery, rangeLabel } from './filters';

const route = getRouteApi('/signed-in/projects/$projectId/errors/$signatureId');

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="lg">
        {value}
      </Text>
    </Paper>
  );
}

function GroupSummary({ group }: { group: ErrorGroupDetail }) {
  const frame = group.frame ? `${group.frame.function ?? '(anonymous)'} in ${group.frame.file}` : null;
  return (
    <Card withBorder padding="md" component="section" aria-label="Signature">
      <Stack gap="xs">
        <Text size="sm" className="mono" fw={600} style={{ whiteSpace: 'pre-wrap' }}>
          {group.message}
        </Text>
        {frame ? (
          <Text size="xs" c="dimmed" className="mono">
            at {frame}
          </Text>
        ) : null}
        <Text size="xs" c="dimmed">
          Latest message, {formatTime(group.lastSeenAt)}:
        </Text>
        <pre className="pre">{group.sampleMessage}</pre>
      </Stack>
    </Card>
  );
}

function Trend({ group }: { group: ErrorGroupDetail }) {
  const data = group.daily.map((day) => ({ date: day.day.slice(0, 10), count: day.count }));
  return (
    <Card withBorder padding="md" component="section" aria-label="Per day">
      <Title order={2} size="h4" mb="xs">
        Per day
      </Title>
      <Suspense fallback={<LoadingState rows={3} />}>
        <TrendChart
          data={data}
          series={[{ name: 'count', label: 'Occurrences', color: 'red.6' }]}
          format={(value) => formatNumber(value)}
          height={160}
        />
      </Suspense>
    </Card>
  );
}

export function ErrorGroupPage() {
  const { projectId, signatureId } = route.useParams();
  const search = route.useSearch();
  const query = useMemo(() => groupQuery(search, new Date()), [search]);
  const group = useQuery(errorGroupQuery(projectId, signatureId, query));

  if (group.isPending) return <LoadingState label="Loading the error group…" rows={8} />;
  if (group.isError) return <ErrorState error={group.error} onRetry={() => void group.refetch()} />;
  const data = group.data;
  return (
    <Stack gap="md">
      <Group gap="xs">
        <AnchorLink to="/projects/$projectId/errors" params={{ projectId }} search={search} size="sm">
          Errors
        </AnchorLink>
        <Text size="sm" c="dimmed">
          › {rangeLabel(search.range)}
          {search.branch ? `, ${search.branch}` : ''}
          {search.environment ? `, ${search.environment}` : ''}
        </Text>
      </Group>
      <Title order={1} size="h2" className="mono" style={{ overflowWrap: 'anywhere' }}>
        {data.signature}
      </Title>
      <GroupSummary group={data} />
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Figure label="Occurrences" value={formatNumber(data.occurrences)} />
        <Figure label="Tests affected" value={formatNumber(data.testsAffected)} />
        <Figure label="Runs" value={formatNumber(data.runs)} />
        <Figure label="Branches" value={data.branches.join(', ') || '—'} />
      </SimpleGrid>
      <Trend group={data} />
      <Card withBorder padding="md" component="section" aria-label="Tests it hit">
        <Title order={2} size="h4" mb="xs">
          Tests it hit
        </Title>
        <ErrorTests group={data} projectId={projectId} />
      </Card>
      <Card withBorder padding="md" component="section" aria-label="Runs it hit">
        <Title order={2} size="h4" mb="xs">
          Runs it hit
        </Title>
        <ErrorRuns group={data} projectId={projectId} />
      </Card>
      <Text size="xs" c="dimmed">
        Id <span className="mono">{signatureId}</span>: the same error in every run, as long as its message
        and frame read the same.
      </Text>
    </Stack>
  );
}
