/** A spec file in one run (a suite, as the debug bundle calls it): its tests, failures first. */
import { Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { runQuery, type RunSpec } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { StatCounts } from '../../components/badges';
import { CopyFetched } from '../../components/CopyButton';
import { formatDuration } from '../../components/format';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { loadSuiteMarkdown } from './api';
import { sortTests } from './sortTests';
import { SuiteTests } from './SuiteTests';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId/suites/$suiteId');

function Breadcrumb({ projectId, runId, counter }: { projectId: string; runId: string; counter: number }) {
  return (
    <Group gap={6}>
      <AnchorLink to="/projects/$projectId/runs" params={{ projectId }} size="sm">
        Runs
      </AnchorLink>
      <Text size="sm" c="dimmed">
        /
      </Text>
      <AnchorLink to="/projects/$projectId/runs/$runId" params={{ projectId, runId }} size="sm">
        Run #{counter}
      </AnchorLink>
    </Group>
  );
}

function SuiteHeader({ spec, projectId, runId }: { spec: RunSpec; projectId: string; runId: string }) {
  return (
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
          load={() => loadSuiteMarkdown(projectId, runId, spec.file)}
        />
      ) : null}
    </Group>
  );
}

export function SuitePage() {
  const { projectId, runId, suiteId } = route.useParams();
  const run = useQuery(runQuery(projectId, runId));
  if (run.isPending) return <LoadingState label="Loading the spec file…" />;
  if (run.isError) return <ErrorState error={run.error} onRetry={() => void run.refetch()} />;
  const spec = run.data.specs?.find((candidate) => candidate.file === suiteId);
  const header = <Breadcrumb projectId={projectId} runId={runId} counter={run.data.counter} />;
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
  return (
    <Stack>
      {header}
      <SuiteHeader spec={spec} projectId={projectId} runId={runId} />
      <SuiteTests file={spec.file} tests={sortTests(spec.tests)} place={{ projectId, runId }} />
    </Stack>
  );
}
