import { Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A key figure: a small label above a large value, with an optional line below. */
export function Figure({
  label,
  value,
  hint,
  color,
}: {
  label: string;
  value: ReactNode;
  hint?: ReactNode;
  color?: string;
}) {
  return (
    <Paper withBorder p="sm" radius="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={700} size="xl" c={color}>
        {value}
      </Text>
      {hint ? (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      ) : null}
    </Paper>
  );
}
