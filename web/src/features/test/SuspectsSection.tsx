/**
 * For a failure that is new on its branch: the last run where the test passed and the first where it
 * failed, with their commits and authors, and the runs between (which skipped it): where to look first.
 */
import { Badge, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { AnchorLink } from '../../components/AnchorLink';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatTime, shortSha } from '../../components/format';
import { ErrorState, LoadingState } from '../../components/states';
import { suspectsQuery, type SuspectCommits, type SuspectRun } from './api';
import { Section } from './Section';

function RunLine({ role, run, projectId }: { role: string; run: SuspectRun; projectId: string }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Badge variant="outline" color="gray" size="sm" radius="sm">
          {role}
        </Badge>
      </Table.Td>
      <Table.Td>
        <AnchorLink to="/projects/$projectId/runs/$runId" params={{ projectId, runId: run.runId }} size="sm">
          #{run.counter}
        </AnchorLink>
      </Table.Td>
      <Table.Td>
        <StatusBadge status={run.outcome} size="xs" />
      </Table.Td>
      <Table.Td className="mono">{shortSha(run.commit?.sha)}</Table.Td>
      <Table.Td maw={360}>
        <Text size="sm" lineClamp={1} title={run.commit?.message}>
          {run.commit?.message?.split('\n')[0] ?? '—'}
        </Text>
      </Table.Td>
      <Table.Td>{run.commit?.author ?? '—'}</Table.Td>
      <Table.Td>
        <Text size="sm" title={formatTime(run.startedAt)}>
          {formatAgo(run.startedAt)}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

function SuspectRuns({ suspects, projectId }: { suspects: SuspectCommits; projectId: string }) {
  const { lastPass, firstFail, between } = suspects;
  return (
    <Stack gap="xs">
      <Text size="sm">
        {suspects.newFailure
          ? 'A new failure: '
          : `Failing in the last ${suspects.failingRuns} runs on ${suspects.branch ?? 'its branch'}: `}
        the change that broke it is in the commits after the last passing run, up to the first failing one
        {between.length > 0 ? ` (${between.length} runs between skipped the test)` : ''}.
      </Text>
      <Table.ScrollContainer minWidth={720}>
        <Table aria-label="Suspect commits">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Where</Table.Th>
              <Table.Th>Run</Table.Th>
              <Table.Th>Test</Table.Th>
              <Table.Th>Commit</Table.Th>
              <Table.Th>Message</Table.Th>
              <Table.Th>Author</Table.Th>
              <Table.Th>Started</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {lastPass ? <RunLine role="last pass" run={lastPass} projectId={projectId} /> : null}
            {between.map((run) => (
              <RunLine key={run.runId} role="between" run={run} projectId={projectId} />
            ))}
            {firstFail ? <RunLine role="first fail" run={firstFail} projectId={projectId} /> : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {!lastPass ? (
        <Text size="xs" c="dimmed">
          No passing run of this test on {suspects.branch ?? 'its branch'}: it may have failed since it was
          added.
        </Text>
      ) : null}
    </Stack>
  );
}

export function SuspectsSection({
  projectId,
  caseId,
  branch,
}: {
  projectId: string;
  caseId: string;
  branch: string | null;
}) {
  const suspects = useQuery(suspectsQuery(projectId, caseId, branch));
  return (
    <Section
      title="Suspect commits"
      right={
        <Text size="xs" c="dimmed">
          {suspects.data?.branch ?? branch ?? ''}
        </Text>
      }
    >
      {suspects.isPending ? (
        <LoadingState label="Looking for suspect commits…" rows={2} />
      ) : suspects.isError ? (
        <ErrorState error={suspects.error} onRetry={() => void suspects.refetch()} />
      ) : suspects.data.firstFail ? (
        <SuspectRuns suspects={suspects.data} projectId={projectId} />
      ) : (
        <Text size="sm" c="dimmed">
          Nothing to suspect on {suspects.data.branch ?? 'its branch'}: its latest run there did not fail.
        </Text>
      )}
    </Section>
  );
}
