/** The run page's title block: breadcrumb, number and title, status, live badge, when and what, actions. */
import { Badge, Group, Stack, Text, Title, Tooltip } from '@mantine/core';
import { LIVE_INTERVAL_MS, type RunDetail } from '../../api/queries';
import { useCanWrite } from '../../api/role';
import { AnchorLink } from '../../components/AnchorLink';
import { RunStatus } from '../../components/badges';
import { CopyFetched } from '../../components/CopyButton';
import { formatAgo, formatNumber, formatTime } from '../../components/format';
import { loadRunMarkdown } from './api';
import { PdfButton } from './PdfButton';

function frameworkOf(run: RunDetail): string {
  if (!run.framework) return '';
  return ` · ${run.framework.name}${run.framework.version ? ` ${run.framework.version}` : ''}`;
}

export function RunHeader({ projectId, runId, run }: { projectId: string; runId: string; run: RunDetail }) {
  const canWrite = useCanWrite(projectId);
  return (
    <Group justify="space-between" align="flex-start">
      <Stack gap={4}>
        <Group gap="xs">
          <AnchorLink to="/projects/$projectId/runs" params={{ projectId }} size="sm">
            Runs
          </AnchorLink>
          <Text size="sm" c="dimmed">
            /
          </Text>
        </Group>
        <Group gap="sm">
          <Title order={1} size="h2">
            Run #{run.counter}
            {run.title ? ` · ${run.title}` : ''}
          </Title>
          <RunStatus status={run.status} outcome={run.outcome} />
          {run.status === 'running' ? (
            <Tooltip label={`Refreshed every ${LIVE_INTERVAL_MS / 1000} s while the run is running`}>
              <Badge variant="dot">Live</Badge>
            </Tooltip>
          ) : null}
        </Group>
        <Text size="sm" c="dimmed">
          Started <span title={formatTime(run.startedAt)}>{formatAgo(run.startedAt)}</span>
          {run.environment ? ` · ${run.environment}` : ''}
          {frameworkOf(run)}
          {' · '}
          {formatNumber(run.stats.total)} tests
        </Text>
      </Stack>
      <Group gap="xs">
        <CopyFetched label="Copy failures as Markdown" load={() => loadRunMarkdown(projectId, runId)} />
        {canWrite ? <PdfButton projectId={projectId} runId={runId} counter={run.counter} /> : null}
      </Group>
    </Group>
  );
}
