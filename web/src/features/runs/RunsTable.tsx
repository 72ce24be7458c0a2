/** The runs of a page as a table: number and title, status, counts, branch, environment, commit, start, duration. */
import { Table, Text } from '@mantine/core';
import type { RunRecord } from '../../api/queries';
import { RunLeadCells } from '../../components/RunLeadCells';
import { formatAgo, formatDuration, formatTime, shortSha } from '../../components/format';

function RunRow({ run, projectId }: { run: RunRecord; projectId: string }) {
  return (
    <Table.Tr key={run.id}>
      <RunLeadCells run={run} projectId={projectId} clamp />
      <Table.Td>
        <Text size="sm" lineClamp={1}>
          {run.branch ?? '—'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{run.environment ?? '—'}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" className="mono" title={run.commit?.message ?? undefined}>
          {shortSha(run.commit?.sha)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" title={formatTime(run.startedAt)}>
          {formatAgo(run.startedAt)}
        </Text>
      </Table.Td>
      <Table.Td ta="right">
        <Text size="sm">{run.status === 'running' ? 'running' : formatDuration(run.durationMs)}</Text>
      </Table.Td>
    </Table.Tr>
  );
}

export function RunsTable({ runs, projectId }: { runs: RunRecord[]; projectId: string }) {
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table highlightOnHover striped aria-label="Runs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Run</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Tests</Table.Th>
            <Table.Th>Branch</Table.Th>
            <Table.Th>Environment</Table.Th>
            <Table.Th>Commit</Table.Th>
            <Table.Th>Started</Table.Th>
            <Table.Th ta="right">Duration</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((run) => (
            <RunRow key={run.id} run={run} projectId={projectId} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
