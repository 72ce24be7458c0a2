/** The test page's title block: breadcrumb to the run and its spec file, the test's title, outcome, platform and tags. */
import { Badge, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { runQuery, type TestBundle } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { StatusBadge } from '../../components/badges';
import { formatDuration } from '../../components/format';

interface Props {
  projectId: string;
  runId: string;
  bundle: TestBundle;
}

/** Runs / the run (its number once the run is in the cache) / the spec file. */
function TestBreadcrumb({ projectId, runId, bundle }: Props) {
  const run = useQuery({ ...runQuery(projectId, runId), enabled: false });
  const { meta } = bundle;
  const data = bundle;
  return (
    <Group gap={6}>
      <AnchorLink to="/projects/$projectId/runs" params={{ projectId }} size="sm">
        Runs
      </AnchorLink>
      <Text size="sm" c="dimmed">
        /
      </Text>
      <AnchorLink to="/projects/$projectId/runs/$runId" params={{ projectId, runId }} size="sm">
        {run.data ? `Run #${run.data.counter}` : (meta.runTitle ?? 'Run')}
      </AnchorLink>
      <Text size="sm" c="dimmed">
        /
      </Text>
      <AnchorLink
        to="/projects/$projectId/runs/$runId/suites/$suiteId"
        params={{ projectId, runId, suiteId: data.spec.suiteId }}
        size="sm"
        className="mono"
      >
        {data.spec.file}
      </AnchorLink>
    </Group>
  );
}

export function TestHeader({ projectId, runId, bundle }: Props) {
  const { test, meta } = bundle;
  return (
    <Stack gap={4}>
      <TestBreadcrumb projectId={projectId} runId={runId} bundle={bundle} />
      <Group gap="sm" align="center">
        <Title order={1} size="h3">
          {test.titlePath.join(' › ')}
        </Title>
        <StatusBadge status={test.outcome} size="md" />
        {test.project ? (
          <Badge variant="outline" color="gray">
            {test.project}
          </Badge>
        ) : null}
        {test.tags.map((tag) => (
          <Badge key={tag} variant="light" color="gray" size="sm">
            {tag}
          </Badge>
        ))}
      </Group>
      <Text size="sm" c="dimmed">
        {test.file}
        {test.line !== null ? `:${test.line}` : ''} · attempt {meta.attempt + 1} of {meta.attempts}:{' '}
        {test.status} in {formatDuration(test.durationMs)}
        {bundle.environment.branch ? ` · ${bundle.environment.branch}` : ''}
      </Text>
    </Stack>
  );
}
