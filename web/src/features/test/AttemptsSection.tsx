/** Every attempt of the test side by side, the one shown marked; only when it was retried. */
import { Group, Paper, SimpleGrid, Text } from '@mantine/core';
import type { TestBundle } from '../../api/queries';
import { StatusBadge } from '../../components/badges';
import { formatDuration } from '../../components/format';
import { ToneText } from '../../components/Tone';
import { plain } from './plain';
import { Section } from './Section';
import classes from './TestPage.module.css';

export function AttemptsSection({ bundle }: { bundle: TestBundle }) {
  const shown = {
    attempt: bundle.meta.attempt,
    status: bundle.test.status,
    durationMs: bundle.test.durationMs,
    error: bundle.error ? { message: plain(bundle.error.message).split('\n')[0] ?? '' } : null,
  };
  const attempts = [...bundle.attemptHistory, shown].sort((a, b) => a.attempt - b.attempt);
  if (attempts.length < 2) return null;
  return (
    <Section title="Attempts">
      <SimpleGrid cols={{ base: 1, sm: Math.min(attempts.length, 4) }} spacing="xs">
        {attempts.map((attempt) => (
          <Paper
            key={attempt.attempt}
            withBorder
            p="xs"
            className={attempt.attempt === shown.attempt ? classes.selected : undefined}
            aria-current={attempt.attempt === shown.attempt ? 'true' : undefined}
          >
            <Group justify="space-between" mb={4}>
              <Text size="sm" fw={600}>
                {attempt.attempt === 0 ? 'First try' : `Retry ${attempt.attempt}`}
              </Text>
              <StatusBadge status={attempt.status} size="xs" />
            </Group>
            <Text size="xs" c="dimmed">
              {formatDuration(attempt.durationMs)}
            </Text>
            <ToneText size="xs" tone={attempt.error ? 'red' : 'plain'} className="mono" lineClamp={3}>
              {attempt.error ? attempt.error.message : 'No error'}
            </ToneText>
          </Paper>
        ))}
      </SimpleGrid>
    </Section>
  );
}
