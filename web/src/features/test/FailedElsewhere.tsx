/** The test's last failures in other runs: run, branch, environment, platform, error (and its group), when. */
import { Group, Table, Text } from '@mantine/core';
import { AnchorLink } from '../../components/AnchorLink';
import { SignatureLink } from '../../components/SignatureLink';
import { formatAgo, formatTime } from '../../components/format';
import type { HistoryItem } from './HistoryOutcomes';
import { plain } from './plain';

interface Place {
  projectId: string;
  caseId: string;
}

function FailedRow({ item, projectId, caseId }: Place & { item: HistoryItem }) {
  return (
    <Table.Tr>
      <Table.Td>
        <AnchorLink
          to="/projects/$projectId/runs/$runId/tests/$caseId"
          params={{ projectId, runId: item.runId, caseId }}
          search={item.project ? { project: item.project } : {}}
          size="sm"
        >
          #{item.counter}
        </AnchorLink>
      </Table.Td>
      <Table.Td>{item.branch ?? '—'}</Table.Td>
      <Table.Td>{item.environment ?? '—'}</Table.Td>
      <Table.Td>{item.project ?? '—'}</Table.Td>
      <Table.Td maw={420}>
        <Group gap="xs" wrap="nowrap">
          <Text size="xs" className="mono" lineClamp={1}>
            {item.errorMessage ? plain(item.errorMessage).split('\n')[0] : '—'}
          </Text>
          {item.errorSignature ? (
            <SignatureLink projectId={projectId} signature={item.errorSignature} />
          ) : null}
        </Group>
      </Table.Td>
      <Table.Td>
        <Text size="xs" title={formatTime(item.startedAt)}>
          {formatAgo(item.startedAt)}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

export function FailedElsewhere({ items, projectId, caseId }: Place & { items: HistoryItem[] }) {
  return (
    <Table>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Run</Table.Th>
          <Table.Th>Branch</Table.Th>
          <Table.Th>Environment</Table.Th>
          <Table.Th>Platform</Table.Th>
          <Table.Th>Error</Table.Th>
          <Table.Th>When</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {items.map((item) => (
          <FailedRow
            key={`${item.runId}:${item.project ?? ''}`}
            item={item}
            projectId={projectId}
            caseId={caseId}
          />
        ))}
      </Table.Tbody>
    </Table>
  );
}
