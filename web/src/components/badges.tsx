import { Badge, Group, Text, Tooltip } from '@mantine/core';
import { formatNumber } from './format';
import { badgeToneVars, ToneText, toneOf } from './Tone';

const LABELS: Record<string, string> = { timedOut: 'timed out' };

/** An outcome or a status, in its colour, with its name in words (never colour alone). */
export function StatusBadge({ status, size = 'sm' }: { status: string; size?: 'xs' | 'sm' | 'md' }) {
  return (
    <Badge
      color={toneOf(status)}
      variant="light"
      size={size}
      radius="sm"
      vars={badgeToneVars(toneOf(status))}
    >
      {LABELS[status] ?? status}
    </Badge>
  );
}

/** A run's status and, once finished, its outcome. */
export function RunStatus({ status, outcome }: { status: string; outcome: string | null }) {
  return <StatusBadge status={status === 'running' ? 'running' : (outcome ?? 'finished')} />;
}

export interface Stats {
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

/** Counts by outcome, each labelled for screen readers and sighted users alike. */
export function StatCounts({ stats }: { stats: Stats }) {
  const parts: [keyof Stats, string][] = [
    ['passed', 'passed'],
    ['failed', 'failed'],
    ['flaky', 'flaky'],
    ['skipped', 'skipped'],
  ];
  return (
    <Group gap={10} wrap="nowrap">
      {parts.map(([key, label]) => (
        <Tooltip key={key} label={`${formatNumber(stats[key])} ${label}`}>
          {stats[key] > 0 ? (
            <ToneText
              size="sm"
              tone={toneOf(key)}
              fw={key !== 'passed' ? 600 : 400}
              aria-label={`${stats[key]} ${label}`}
            >
              {formatNumber(stats[key])} {label}
            </ToneText>
          ) : (
            <Text size="sm" c="dimmed" aria-label={`${stats[key]} ${label}`}>
              {formatNumber(stats[key])} {label}
            </Text>
          )}
        </Tooltip>
      ))}
    </Group>
  );
}
