/** What an error group hit: its tests (most recently hit first) and its runs (newest first), each a link. */
import { Badge, Table, Text } from '@mantine/core';
import { AnchorLink } from '../../components/AnchorLink';
import { formatAgo, formatNumber, formatTime, shortSha } from '../../components/format';
import type { ErrorGroupDetail } from './api';

export function ErrorTests({ group, projectId }: { group: ErrorGroupDetail; projectId: string }) {
  // A test's page is a test in a run: the newest run the group hit that test in is not known per test, so
  // the link opens the test in the group's newest run it hit.
  const newestRun = group.hits[0]?.runId;
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped aria-label="Tests it hit">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Test</Table.Th>
            <Table.Th>Platform</Table.Th>
            <Table.Th ta="right">Occurrences</Table.Th>
            <Table.Th>Last hit</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {group.tests.map((test) => (
            <Table.Tr key={`${test.testCaseId}:${test.project ?? ''}`}>
              <Table.Td maw={460}>
                {newestRun ? (
                  <AnchorLink
                    to="/projects/$projectId/runs/$runId/tests/$caseId"
                    params={{ projectId, runId: newestRun, caseId: test.testCaseId }}
                    search={test.project ? { project: test.project } : {}}
                    size="sm"
                    lineClamp={1}
                  >
                    {test.title}
                  </AnchorLink>
                ) : (
                  <Text size="sm">{test.title}</Text>
                )}
                <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
                  {test.file}
                </Text>
              </Table.Td>
              <Table.Td>{test.project ?? '—'}</Table.Td>
              <Table.Td ta="right">{formatNumber(test.occurrences)}</Table.Td>
              <Table.Td>
                <Text size="sm" title={formatTime(test.lastSeenAt)}>
                  {formatAgo(test.lastSeenAt)}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function ErrorRuns({ group, projectId }: { group: ErrorGroupDetail; projectId: string }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped aria-label="Runs it hit">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Run</Table.Th>
            <Table.Th>Branch</Table.Th>
            <Table.Th>Environment</Table.Th>
            <Table.Th>Commit</Table.Th>
            <Table.Th ta="right">Occurrences</Table.Th>
            <Table.Th>Started</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {group.hits.map((hit) => (
            <Table.Tr key={hit.runId}>
              <Table.Td>
                <AnchorLink
                  to="/projects/$projectId/runs/$runId"
                  params={{ projectId, runId: hit.runId }}
                  size="sm"
                >
                  #{hit.counter}
                </AnchorLink>
              </Table.Td>
              <Table.Td>
                {hit.branch ? (
                  <Badge variant="outline" color="gray" size="sm" radius="sm">
                    {hit.branch}
                  </Badge>
                ) : (
                  '—'
                )}
              </Table.Td>
              <Table.Td>{hit.environment ?? '—'}</Table.Td>
              <Table.Td maw={280}>
                <Text size="xs" lineClamp={1} title={hit.commit?.message}>
                  <span className="mono">{shortSha(hit.commit?.sha)}</span>
                  {hit.commit?.message ? ` ${hit.commit.message.split('\n')[0]}` : ''}
                </Text>
              </Table.Td>
              <Table.Td ta="right">{formatNumber(hit.occurrences)}</Table.Td>
              <Table.Td>
                <Text size="sm" title={formatTime(hit.startedAt)}>
                  {formatAgo(hit.startedAt)}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
