/** The automated tests that name the case, each with its latest outcome linking to that result. */
import { Card, Group, Stack, Text, Title } from '@mantine/core';
import type { ManualCaseDetail } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatTime } from '../../components/format';

export function LinkedTests({ projectId, testCase }: { projectId: string; testCase: ManualCaseDetail }) {
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={2} size="h4">
          Automated tests
        </Title>
        {testCase.linkedTests.length === 0 ? (
          <Text size="sm" c="dimmed">
            None yet: an automated test links itself by naming{' '}
            <span className="mono">@{testCase.caseId}</span> in its title or tags.
          </Text>
        ) : (
          testCase.linkedTests.map((test) => (
            <Group key={test._id} gap="xs" wrap="nowrap" justify="space-between">
              {test.lastResult ? (
                // The test's page in the run of its latest result: its error, attempts and history.
                <AnchorLink
                  to="/projects/$projectId/runs/$runId/tests/$caseId"
                  params={{ projectId, runId: test.lastResult.runId, caseId: test.testCaseId }}
                  size="sm"
                  lineClamp={2}
                  title={test.fullTitle}
                >
                  {test.displayTitle}
                </AnchorLink>
              ) : (
                <Text size="sm">{test.displayTitle}</Text>
              )}
              {test.lastResult ? (
                <Group gap={4} wrap="nowrap">
                  <StatusBadge status={test.lastResult.status} size="xs" />
                  <Text size="xs" c="dimmed" title={formatTime(test.lastResult.at)}>
                    {formatAgo(test.lastResult.at)}
                  </Text>
                </Group>
              ) : null}
            </Group>
          ))
        )}
      </Stack>
    </Card>
  );
}
