import { Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ToneText } from './Tone';

/** A key figure: a small label above a large value (in a tone: `red`, `orange`…), with an optional line below. */
export function Figure({
  label,
  value,
  hint,
  tone,
}: {
  label: string;
  value: ReactNode;
  hint?: ReactNode;
  tone?: string | undefined;
}) {
  return (
    <Paper withBorder p="sm" radius="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      {tone ? (
        <ToneText fw={700} size="xl" tone={tone}>
          {value}
        </ToneText>
      ) : (
        <Text fw={700} size="xl">
          {value}
        </Text>
      )}
      {hint ? (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      ) : null}
    </Paper>
  );
}
