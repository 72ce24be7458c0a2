import { getRouteApi } from '@tanstack/react-router';
/** A spec file in one run (a suite, as the debug bundle calls it): its tests, failures first. */
import { Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { AnchorLink } from '../../components/AnchorLink';
import { verdict } from '../../api/client';
import { runQuery } from '../../api/queries';
import { StatCounts, StatusBadge } from '../../components/badges';
import { CopyFetched } from '../../components/CopyButton';
import { formatDuration } from '../../components/format';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { ToneText } from '../../components/Tone';
import { errorHeadline } from '../../components/runRows';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId/suites/$suiteId');

const ORDER: Record<string, number> = { failed: 0, flaky: 1, passed: 2, skipped: 3 };

export function SuitePage() {
  const { projectId, runId, suiteId } = route.useParams();
  const run = useQuery(runQuery(projectId, runId));
  if (run.isPending) return <LoadingState label="Loading the spec file…" />;
  if (run.isError) return <ErrorState error={run.error} onRetry={() => void run.refetch()} />;
  const spec = run.data.specs?.find((candidate) => candidate.file === suiteId);
  const header = (
    <Group gap={6}>
      <AnchorLink to="/projects/$projectId/runs" params={{ projectId }} size="sm">
        Runs
      </AnchorLink>
      <Text size="sm" c="dimmed">
        /
      </Text>
      <AnchorLink to="/projects/$projectId/runs/$runId" params={{ projectId, runId }} size="sm">
        Run #{run.data.counter}
      </AnchorLink>
    </Group>
  );
  if (!spec) {
    return (
      <Stack>
        {header}
        <EmptyState title="This spec file is not in the run">
          <span className="mono">{suiteId}</span> has no result in run #{run.data.counter}.
        </EmptyState>
      </Stack>
    );
  }
  const tests = [...spec.tests].sort(
    (a, b) =>
      (ORDER[a.outcome] ?? 9) - (ORDER[b.outcome] ?? 9) ||
      a.titlePath.join(' ').localeCompare(b.titlePath.join(' ')),
  );
  return (
    <Stack>
      {header}
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1} size="h3" className="mono">
            {spec.file}
          </Title>
          <Group gap="md">
            <StatCounts stats={spec} />
            <Text size="sm" c="dimmed">
              {formatDuration(spec.durationMs)}
            </Text>
          </Group>
        </Stack>
        {spec.failed + spec.flaky > 0 ? (
          <CopyFetched
            label="Copy failures as Markdown"
            load={() => verdict.debugBundleMarkdown({ runId, suiteId, limit: 50 }, { project: projectId })}
          />
        ) : null}
      </Group>
      <Table.ScrollContainer minWidth={720}>
        <Table striped highlightOnHover aria-label={`Tests of ${spec.file}`}>
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
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
