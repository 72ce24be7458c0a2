/** A list of tests in the range (new failures, flaky tests): the first fifteen, with their days. */
import { Card, Table, Text, Title } from '@mantine/core';
import type { AnalyticsSummary } from '../../api/queries';

export function UniqueTests({
  title,
  tests,
  empty,
}: {
  title: string;
  tests: AnalyticsSummary['uniqueNewFailures'];
  empty: string;
}) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {title} ({tests.length})
      </Title>
      {tests.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Test</Table.Th>
              <Table.Th ta="right">Days</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tests.slice(0, 15).map((test) => (
              <Table.Tr key={`${test.filePath}:${test.title}`}>
                <Table.Td maw={360}>
                  <Text size="sm" lineClamp={1}>
                    {test.title}
                  </Text>
                  <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
                    {test.filePath}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">{test.failedInDays}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
