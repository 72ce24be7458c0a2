import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { ManualRunSummary, Release } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { formatDate } from '../../components/format';
import { ProgressBar } from './ProgressBar';

/** Whether the release is past its due date and not completed. */
const isOverdue = (release: Release) =>
  release.dueDate !== null &&
  release.status !== 'completed' &&
  release.dueDate < new Date().toISOString().slice(0, 10);

/** A release: its status, due date, combined progress and links to its runs. */
export function ReleaseCard({
  projectId,
  release,
  runs,
}: {
  projectId: string;
  release: Release;
  runs: ManualRunSummary[];
}) {
  const overdue = isOverdue(release);
  return (
    <Card withBorder component="article" aria-label={`Release ${release.name}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Title order={3} size="h4">
            {release.name}
          </Title>
          <Badge variant="light" color={release.status === 'active' ? 'blue' : 'gray'}>
            {release.status}
          </Badge>
        </Group>
        <Text size="sm" c={overdue ? 'red' : 'dimmed'}>
          <span className="mono">{release.releaseId}</span> · due{' '}
          {release.dueDate ? formatDate(release.dueDate) : 'no date'}
          {overdue ? ' (overdue)' : ''}
        </Text>
        <ProgressBar progress={release.progress} label={`Progress of release ${release.name}`} />
        <Text size="xs" c="dimmed">
          {release.runCount} {release.runCount === 1 ? 'run' : 'runs'}
        </Text>
        {runs.map((run) => (
          <AnchorLink
            key={run._id}
            to="/projects/$projectId/manual-runs/$runId"
            params={{ projectId, runId: run._id }}
            search={{}}
            size="sm"
          >
            {run.name}
          </AnchorLink>
        ))}
      </Stack>
    </Card>
  );
}
