/** The loading, empty and error states every page shows the same way. */
import { Alert, Button, Center, Group, Loader, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconMoodEmpty } from '@tabler/icons-react';
import { Link, type ErrorComponentProps } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { describeError } from '../api/client';

export function LoadingState({ label = 'Loading…', rows = 6 }: { label?: string; rows?: number }) {
  return (
    <Stack gap="xs" aria-busy="true" aria-live="polite">
      <Group gap="xs">
        <Loader size="xs" />
        <Text size="sm" c="dimmed">
          {label}
        </Text>
      </Group>
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} height={28} radius="sm" />
      ))}
    </Stack>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Center py="xl">
      <Stack align="center" gap="xs" maw={560}>
        <IconMoodEmpty size={36} stroke={1.5} aria-hidden />
        <Title order={3} size="h4">
          {title}
        </Title>
        {children ? (
          <Text c="dimmed" size="sm" ta="center" component="div">
            {children}
          </Text>
        ) : null}
      </Stack>
    </Center>
  );
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { title, message, code } = describeError(error);
  return (
    <Alert color="red" variant="light" title={title} icon={<IconAlertTriangle aria-hidden />} role="alert">
      <Stack gap="xs">
        <Text size="sm">{message}</Text>
        {code ? (
          <Text size="xs" c="dimmed" className="mono">
            {code}
          </Text>
        ) : null}
        {onRetry ? (
          <Group>
            <Button size="xs" variant="default" onClick={onRetry}>
              Try again
            </Button>
          </Group>
        ) : null}
      </Stack>
    </Alert>
  );
}

export function NotFoundPage() {
  return (
    <Center h="100%" p="xl">
      <Stack align="center">
        <Title order={1}>Page not found</Title>
        <Text c="dimmed">This address is not a page of Verdict.</Text>
        <Button component={Link} to="/">
          Go to your projects
        </Button>
      </Stack>
    </Center>
  );
}

export function RootErrorPage({ error, reset }: ErrorComponentProps) {
  return (
    <Center h="100%" p="xl">
      <Stack maw={640} w="100%">
        <ErrorState error={error} onRetry={reset} />
      </Stack>
    </Center>
  );
}
