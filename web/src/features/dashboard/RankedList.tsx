/** The tests ranked by a rate over 30 days (most flaky, most failing), each a link to the explorer. */
import { Card, Table, Text, Title } from '@mantine/core';
import type { Dashboard } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { formatPercent } from '../../components/format';

type RankedTest = Dashboard['topFlakyTests'][number];

function RankedRow({ test, projectId, unit }: { test: RankedTest; projectId: string; unit: string }) {
  return (
    <Table.Tr key={test.testCaseId}>
      <Table.Td maw={320}>
        <AnchorLink
          to="/projects/$projectId/explorer"
          params={{ projectId }}
          search={{ search: test.title }}
          size="sm"
          lineClamp={1}
        >
          {test.title}
        </AnchorLink>
        <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
          {test.filePath}
        </Text>
      </Table.Td>
      <Table.Td ta="right">
        <Text size="sm" fw={600}>
          {formatPercent(test.rate)}
        </Text>
        <Text size="xs" c="dimmed">
          {test.count} of {test.executions} {unit}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

export function RankedList({
  title,
  tests,
  projectId,
  unit,
}: {
  title: string;
  tests: RankedTest[];
  projectId: string;
  unit: string;
}) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {tests.length === 0 ? (
        <Text size="sm" c="dimmed">
          None in the last 30 days.
        </Text>
      ) : (
        <Table>
          <Table.Tbody>
            {tests.map((test) => (
              <RankedRow key={test.testCaseId} test={test} projectId={projectId} unit={unit} />
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
