/** A spec file's tests as a table: outcome, title (and error headline), platform, attempts, duration. */
import { Badge, Table } from '@mantine/core';
import type { RunSpecTest } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { StatusBadge } from '../../components/badges';
import { formatDuration } from '../../components/format';
import { errorHeadline } from '../../components/runRows';
import { ToneText } from '../../components/Tone';

interface Place {
  projectId: string;
  runId: string;
}

function SuiteTestRow({ test, place: { projectId, runId } }: { test: RunSpecTest; place: Place }) {
  return (
    <Table.Tr key={`${test.testCaseId}:${test.project ?? ''}`}>
      <Table.Td>
        <StatusBadge status={test.outcome} size="xs" />
      </Table.Td>
      <Table.Td>
        <AnchorLink
          to="/projects/$projectId/runs/$runId/tests/$caseId"
          params={{ projectId, runId, caseId: test.testCaseId }}
          search={test.project ? { project: test.project } : {}}
          size="sm"
          display="block"
        >
          {test.titlePath.join(' › ')}
        </AnchorLink>
        {test.errorMessage ? (
          <ToneText size="xs" tone="red" className="mono" lineClamp={1}>
            {errorHeadline(test.errorMessage)}
          </ToneText>
        ) : null}
      </Table.Td>
      <Table.Td>
        {test.project ? (
          <Badge variant="outline" color="gray" size="xs">
            {test.project}
          </Badge>
        ) : (
          '—'
        )}
      </Table.Td>
      <Table.Td>{test.attempts}</Table.Td>
      <Table.Td ta="right">{formatDuration(test.durationMs)}</Table.Td>
    </Table.Tr>
  );
}

export function SuiteTests({ file, tests, place }: { file: string; tests: RunSpecTest[]; place: Place }) {
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table striped highlightOnHover aria-label={`Tests of ${file}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Outcome</Table.Th>
            <Table.Th>Test</Table.Th>
            <Table.Th>Platform</Table.Th>
            <Table.Th>Attempts</Table.Th>
            <Table.Th ta="right">Duration</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tests.map((test) => (
            <SuiteTestRow key={`${test.testCaseId}:${test.project ?? ''}`} test={test} place={place} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
