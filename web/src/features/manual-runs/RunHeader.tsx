/** The run's name and progress above its cases: what is done, by verdict, and the keys that give one. */
import { Group, Kbd, Progress, Stack, Text, Title } from '@mantine/core';
import type { ManualRunDetail } from '../../api/queries';
import { toneOf } from '../../components/Tone';
import { VERDICTS } from './verdicts';

export function RunHeader({ run, canWrite }: { run: ManualRunDetail; canWrite: boolean }) {
  return (
    <>
      <Group justify="space-between" align="flex-end">
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            Manual run <span className="mono">{run.runId}</span>
            {run.release ? ` · ${run.release.name}` : ''} · {run.status.replace('_', ' ')}
          </Text>
          <Title order={1} size="h2">
            {run.name}
          </Title>
        </Stack>
        <KeyHelp canWrite={canWrite} />
      </Group>
      <RunProgress run={run} />
    </>
  );
}

function KeyHelp({ canWrite }: { canWrite: boolean }) {
  return (
    <Text size="xs" c="dimmed" aria-label="Keyboard shortcuts">
      <Kbd size="xs">J</Kbd>/<Kbd size="xs">K</Kbd> next/previous
      {canWrite ? (
        <>
          {' · '}
          {VERDICTS.map((v) => (
            <span key={v.key}>
              <Kbd size="xs">{v.key}</Kbd> {v.label.toLowerCase()}{' '}
            </span>
          ))}
        </>
      ) : null}
    </Text>
  );
}

const PROGRESS_PARTS = ['passed', 'failed', 'blocked', 'skipped', 'retest'] as const;

function RunProgress({ run }: { run: ManualRunDetail }) {
  const { progress } = run;
  const total = Math.max(1, progress.total);
  return (
    <Stack gap={4}>
      <Progress.Root size="lg" aria-hidden>
        {PROGRESS_PARTS.map((part) =>
          progress[part] > 0 ? (
            <Progress.Section key={part} value={(progress[part] / total) * 100} color={toneOf(part)} />
          ) : null,
        )}
      </Progress.Root>
      <Group gap="md" role="status" aria-label="Run progress">
        <Text size="sm" fw={600}>
          {progress.completed} of {progress.total} done ({progress.percentComplete}%)
        </Text>
        {[...PROGRESS_PARTS, 'untested' as const].map((part) => (
          <Text key={part} size="sm">
            {part} {progress[part]}
          </Text>
        ))}
        <Text size="sm" c="dimmed">
          pass rate {progress.passRate}%
        </Text>
      </Group>
    </Stack>
  );
}
