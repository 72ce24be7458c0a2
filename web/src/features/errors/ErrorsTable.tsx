/** The error groups as a table: signature and sample message, counts, branches, first and last seen, trend. */
import { Badge, Box, Group, Table, Text, Tooltip } from '@mantine/core';
import { Suspense } from 'react';
import { Sparkline } from '../../charts';
import { AnchorLink } from '../../components/AnchorLink';
import { formatAgo, formatNumber, formatTime } from '../../components/format';
import { SortHeader } from '../../components/SortHeader';
import type { ErrorGroup } from './api';
import type { ErrorGroupSearch, ErrorsSearch } from './search';

type SortKey = NonNullable<ErrorsSearch['sortBy']>;

interface Sort {
  by: SortKey;
  order: 'asc' | 'desc';
  onSort: (by: SortKey) => void;
}

function Branches({ branches }: { branches: string[] }) {
  const [first, ...others] = branches;
  if (!first) return <Text size="sm">—</Text>;
  return (
    <Group gap={4} wrap="nowrap">
      <Badge variant="outline" color="gray" size="sm" radius="sm" maw={140}>
        {first}
      </Badge>
      {others.length > 0 ? (
        <Tooltip label={others.join(', ')}>
          <Text size="xs" c="dimmed" tabIndex={0} aria-label={`Also on ${others.join(', ')}`}>
            +{others.length}
          </Text>
        </Tooltip>
      ) : null}
    </Group>
  );
}

function Seen({ iso }: { iso: string }) {
  return (
    <Text size="sm" title={formatTime(iso)}>
      {formatAgo(iso)}
    </Text>
  );
}

function ErrorRow({
  group,
  projectId,
  filters,
}: {
  group: ErrorGroup;
  projectId: string;
  filters: ErrorGroupSearch;
}) {
  const total = group.daily.reduce((sum, day) => sum + day.count, 0);
  return (
    <Table.Tr>
      <Table.Td maw={520}>
        <AnchorLink
          to="/projects/$projectId/errors/$signatureId"
          params={{ projectId, signatureId: group.signatureId }}
          search={filters}
          size="sm"
          fw={600}
          lineClamp={2}
          className="mono"
        >
          {group.signature}
        </AnchorLink>
        <Text size="xs" c="dimmed" lineClamp={1} className="mono" title={group.sampleMessage}>
          {group.sampleMessage.split('\n')[0]}
        </Text>
      </Table.Td>
      <Table.Td ta="right">{formatNumber(group.occurrences)}</Table.Td>
      <Table.Td ta="right">{formatNumber(group.testsAffected)}</Table.Td>
      <Table.Td ta="right">{formatNumber(group.runs)}</Table.Td>
      <Table.Td>
        <Branches branches={group.branches} />
      </Table.Td>
      <Table.Td>
        <Seen iso={group.firstSeenAt} />
      </Table.Td>
      <Table.Td>
        <Seen iso={group.lastSeenAt} />
      </Table.Td>
      <Table.Td>
        <Box role="img" aria-label={`${formatNumber(total)} occurrences over ${group.daily.length} days`}>
          <Suspense fallback={<Box w={120} h={28} />}>
            <Sparkline values={group.daily.map((day) => day.count)} />
          </Suspense>
        </Box>
      </Table.Td>
    </Table.Tr>
  );
}

export function ErrorsTable({
  groups,
  projectId,
  filters,
  sort,
}: {
  groups: ErrorGroup[];
  projectId: string;
  filters: ErrorGroupSearch;
  sort: Sort;
}) {
  const header = (label: string, key: SortKey, align?: 'right') => (
    <SortHeader
      label={label}
      active={sort.by === key}
      order={sort.order}
      onSort={() => sort.onSort(key)}
      {...(align ? { align } : {})}
    />
  );
  return (
    <Table.ScrollContainer minWidth={1000}>
      <Table striped highlightOnHover aria-label="Error groups">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Error</Table.Th>
            {header('Occurrences', 'occurrences', 'right')}
            {header('Tests', 'tests', 'right')}
            <Table.Th ta="right">Runs</Table.Th>
            <Table.Th>Branches</Table.Th>
            {header('First seen', 'firstSeen')}
            {header('Last seen', 'lastSeen')}
            <Table.Th>Per day</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {groups.map((group) => (
            <ErrorRow key={group.signatureId} group={group} projectId={projectId} filters={filters} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
