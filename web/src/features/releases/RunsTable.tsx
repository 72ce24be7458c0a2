import { Table, Text } from '@mantine/core';
import type { ManualRunSummary } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { formatAgo, formatTime } from '../../components/format';
import { ProgressBar } from './ProgressBar';

/** Every manual run of the project with its release, assignee, status and progress. */
export function RunsTable({ projectId, runs }: { projectId: string; runs: ManualRunSummary[] }) {
  return (
    <Table.ScrollContainer minWidth={800}>
      <Table striped aria-label="Manual runs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Run</Table.Th>
            <Table.Th>Release</Table.Th>
            <Table.Th>Assignee</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th w={280}>Progress</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((run) => (
            <RunRow key={run._id} projectId={projectId} run={run} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function RunRow({ projectId, run }: { projectId: string; run: ManualRunSummary }) {
  return (
    <Table.Tr>
      <Table.Td>
        <AnchorLink
          to="/projects/$projectId/manual-runs/$runId"
          params={{ projectId, runId: run._id }}
          search={{}}
          size="sm"
        >
          {run.name}
        </AnchorLink>
        <Text size="xs" c="dimmed" className="mono">
          {run.runId}
        </Text>
      </Table.Td>
      <Table.Td>{run.release?.name ?? '—'}</Table.Td>
      <Table.Td>{run.assignee ? `${run.assignee.firstName} ${run.assignee.lastName}` : '—'}</Table.Td>
      <Table.Td>{run.status.replace('_', ' ')}</Table.Td>
      <Table.Td>
        <ProgressBar progress={run.progress} label={`Progress of run ${run.name}`} />
      </Table.Td>
      <Table.Td>
        <Text size="xs" title={formatTime(run.createdAt)}>
          {formatAgo(run.createdAt)}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
