/** The test across its last executions: outcomes, durations, and where else it failed. */
import { Box, Skeleton, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { DurationChart } from '../../charts';
import { formatAgo } from '../../components/format';
import { ErrorState } from '../../components/states';
import { testHistoryQuery } from './api';
import { FailedElsewhere } from './FailedElsewhere';
import { HistoryOutcomes, type HistoryItem, type HistoryTarget } from './HistoryOutcomes';
import { Section } from './Section';

function Durations({ oldestFirst }: { oldestFirst: HistoryItem[] }) {
  return (
    <Box>
      <Text size="sm" fw={600} mb={4}>
        Duration
      </Text>
      <Suspense fallback={<Skeleton height={180} />}>
        <DurationChart
          points={oldestFirst.map((item) => ({
            label: `#${item.counter}${item.project ? ` ${item.project}` : ''}`,
            durationMs: item.durationMs,
            outcome: item.outcome,
          }))}
        />
      </Suspense>
    </Box>
  );
}

export function HistorySection(target: HistoryTarget) {
  const { projectId, caseId, runId } = target;
  const history = useQuery(testHistoryQuery(projectId, caseId));
  if (history.isPending)
    return (
      <Section title="History">
        <Skeleton height={120} />
      </Section>
    );
  if (history.isError)
    return (
      <Section title="History">
        <ErrorState error={history.error} onRetry={() => void history.refetch()} />
      </Section>
    );
  const items = history.data.history?.items ?? [];
  const oldestFirst = [...items].reverse();
  const elsewhere = items.filter((item) => item.outcome === 'failed' && item.runId !== runId);
  const stats = history.data.stats;
  return (
    <Section
      title="History"
      right={
        <Text size="xs" c="dimmed">
          {stats.total} executions · {stats.failed} failed · {stats.flaky} flaky · first seen{' '}
          {formatAgo(history.data.firstSeenAt)}
        </Text>
      }
    >
      <Stack>
        <Box>
          <Text size="sm" fw={600} mb={4}>
            Outcomes, oldest to newest
          </Text>
          <HistoryOutcomes items={oldestFirst} target={target} />
        </Box>
        {oldestFirst.length > 1 ? <Durations oldestFirst={oldestFirst} /> : null}
        <Box>
          <Text size="sm" fw={600} mb={4}>
            Where else it failed
          </Text>
          {elsewhere.length === 0 ? (
            <Text size="sm" c="dimmed">
              It failed in no other run among its last {items.length}.
            </Text>
          ) : (
            <FailedElsewhere items={elsewhere.slice(0, 10)} projectId={projectId} caseId={caseId} />
          )}
        </Box>
      </Stack>
    </Section>
  );
}
