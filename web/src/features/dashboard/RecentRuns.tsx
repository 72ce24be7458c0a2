/** The project's latest runs, each a link to its page, and a link to all runs. */
import { Card, Group, Table, Text, Title } from '@mantine/core';
import type { Dashboard } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { RunLeadCells } from '../../components/RunLeadCells';
import { formatAgo, formatTime } from '../../components/format';

type RecentRun = Dashboard['recentRuns'][number];

function RecentRunRow({ run, projectId }: { run: RecentRun; projectId: string }) {
  return (
    <Table.Tr key={run.id}>
      <RunLeadCells run={run} projectId={projectId} />
      <Table.Td>{run.branch ?? '—'}</Table.Td>
      <Table.Td>
        <Text size="sm" title={formatTime(run.startedAt)}>
          {formatAgo(run.startedAt)}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

export function RecentRuns({ runs, projectId }: { runs: RecentRun[]; projectId: string }) {
  return (
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
            {runs.map((run) => (
              <RecentRunRow key={run.id} run={run} projectId={projectId} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}
