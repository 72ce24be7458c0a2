import { Progress, Stack, Text } from '@mantine/core';
import type { Release } from '../../api/queries';
import { toneOf } from '../../components/Tone';

type Progress = Release['progress'];
const PARTS = ['passed', 'failed', 'blocked', 'skipped', 'retest'] as const;

/** A release's or a run's progress: a bar of its outcomes and the counts in words. */
export function ProgressBar({ progress, label }: { progress: Progress; label: string }) {
  const total = Math.max(1, progress.total);
  return (
    <Stack gap={2}>
      <Progress.Root size="md" aria-hidden>
        {PARTS.map((part) =>
          progress[part] > 0 ? (
            <Progress.Section key={part} value={(progress[part] / total) * 100} color={toneOf(part)} />
          ) : null,
        )}
      </Progress.Root>
      <Text size="xs" c="dimmed" aria-label={label}>
        {progress.completed}/{progress.total} done · {progress.passed} passed · {progress.failed} failed ·{' '}
        {progress.blocked} blocked · pass rate {progress.passRate}%
      </Text>
    </Stack>
  );
}
