/** A titled card of the test page, named for its title (the browser tests find sections by it). */
import { Card, Group, Title } from '@mantine/core';
import type { ReactNode } from 'react';

export function Section({
  title,
  children,
  right,
}: {
  title: string;
  children: ReactNode;
  right?: ReactNode;
}) {
  return (
    <Card withBorder padding="md" component="section" aria-label={title}>
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        {right}
      </Group>
      {children}
    </Card>
  );
}
