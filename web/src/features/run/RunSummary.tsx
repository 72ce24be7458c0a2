/** The run's figures: counts, duration, branch, commit, CI build and shards. */
import { Anchor, Paper, SimpleGrid, Text } from '@mantine/core';
import { IconExternalLink } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { RunDetail } from '../../api/queries';
import { formatDuration, formatNumber, shortSha } from '../../components/format';
import { ToneText, toneOf } from '../../components/Tone';

function Figure({ label, value, tone }: { label: string; value: ReactNode; tone?: string | undefined }) {
  return (
    <Paper withBorder p="xs" radius="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      {tone ? (
        <ToneText fw={700} size="lg" tone={tone} lineClamp={1}>
          {value}
        </ToneText>
      ) : (
        <Text fw={700} size="lg" lineClamp={1} title={typeof value === 'string' ? value : undefined}>
          {value}
        </Text>
      )}
    </Paper>
  );
}

function ciValue(run: RunDetail): ReactNode {
  if (!run.ci?.url) return run.ci?.buildId ?? '—';
  return (
    <Anchor href={run.ci.url} target="_blank" rel="noreferrer" size="sm" fw={600}>
      {run.ci.buildId ?? run.ci.provider ?? 'Build'} <IconExternalLink size={12} aria-hidden />
    </Anchor>
  );
}

function shardsValue(run: RunDetail): string {
  if (!run.shards) return '—';
  return run.status === 'running'
    ? `${run.shards.finished.length} of ${run.shards.total} done`
    : String(run.shards.total);
}

export function RunSummary({ run }: { run: RunDetail }) {
  const { stats } = run;
  return (
    <SimpleGrid cols={{ base: 2, sm: 5, lg: 9 }} spacing="xs">
      <Figure label="Passed" value={formatNumber(stats.passed)} tone={toneOf('passed')} />
      <Figure
        label="Failed"
        value={formatNumber(stats.failed)}
        tone={stats.failed ? toneOf('failed') : undefined}
      />
      <Figure
        label="Flaky"
        value={formatNumber(stats.flaky)}
        tone={stats.flaky ? toneOf('flaky') : undefined}
      />
      <Figure label="Skipped" value={formatNumber(stats.skipped)} />
      <Figure
        label="Duration"
        value={run.status === 'running' ? 'running' : formatDuration(run.durationMs)}
      />
      <Figure label="Branch" value={run.branch ?? '—'} />
      <Figure
        label="Commit"
        value={
          <span className="mono" title={run.commit?.message ?? undefined}>
            {shortSha(run.commit?.sha)}
          </span>
        }
      />
      <Figure label="CI" value={ciValue(run)} />
      <Figure label="Shards" value={shardsValue(run)} />
    </SimpleGrid>
  );
}
