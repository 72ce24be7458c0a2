/** A page of test cases as a table, sortable by fail rate, flaky rate, average duration and last run. */
import { Badge, Group, Table, Text } from '@mantine/core';
import type { ExplorerData } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatDuration, formatPercent, formatTime } from '../../components/format';
import { SortHeader } from '../../components/SortHeader';
import type { EXPLORER_SORTS } from './search';

type Sort = (typeof EXPLORER_SORTS)[number];
type TestCase = ExplorerData['testCases'][number];

function TestCaseRow({ test, projectId }: { test: TestCase; projectId: string }) {
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
        <Group gap={4}>
          <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
            {test.specName}
          </Text>
          {test.platforms.map((platform) => (
            <Badge key={platform} variant="outline" color="gray" size="xs">
              {platform}
            </Badge>
          ))}
        </Group>
      </Table.Td>
      <Table.Td>
        <StatusBadge status={test.status} size="xs" />
      </Table.Td>
      <Table.Td ta="right">{test.executions}</Table.Td>
      <Table.Td ta="right">{formatPercent(test.failureRate)}</Table.Td>
      <Table.Td ta="right">{formatPercent(test.flakyRate)}</Table.Td>
      <Table.Td ta="right">{formatDuration(test.avgDuration)}</Table.Td>
      <Table.Td>
        <Text size="xs" title={formatTime(test.lastRun.timestamp)}>
          #{test.lastRun.counter} · {formatAgo(test.lastRun.timestamp)}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

const SORTED: { column: Sort; label: string; align?: 'right' }[] = [
  { column: 'failRate', label: 'Fail rate', align: 'right' },
  { column: 'flakyRate', label: 'Flaky rate', align: 'right' },
  { column: 'avgDuration', label: 'Avg duration', align: 'right' },
  { column: 'lastExecution', label: 'Last run' },
];

interface Props {
  tests: TestCase[];
  projectId: string;
  sortBy: Sort;
  order: 'asc' | 'desc';
  /** Sorts by a column: descending first, then the other way on the same column. */
  onSort: (changes: { sortBy: Sort; order: 'asc' | 'desc' }) => void;
}

export function ExplorerTable({ tests, projectId, sortBy, order, onSort }: Props) {
  return (
    <Table.ScrollContainer minWidth={960}>
      <Table striped highlightOnHover aria-label="Test cases">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Test case</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th ta="right">Executions</Table.Th>
            {SORTED.map(({ column, label, align }) => (
              <SortHeader
                key={column}
                label={label}
                active={sortBy === column}
                order={order}
                onSort={() =>
                  onSort({ sortBy: column, order: sortBy === column && order === 'desc' ? 'asc' : 'desc' })
                }
                {...(align ? { align } : {})}
              />
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tests.map((test) => (
            <TestCaseRow key={test.testCaseId} test={test} projectId={projectId} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
