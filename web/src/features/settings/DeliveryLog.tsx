import { Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { WebhookDelivery } from '../../api/queries';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatTime } from '../../components/format';
import { ErrorState, LoadingState } from '../../components/states';
import { webhookDeliveriesQuery } from './api';
import { attemptBadge } from './webhooks';

/** The delivery attempts of one subscription, newest first. */
export function DeliveryLog({ projectId, webhookId }: { projectId: string; webhookId: string }) {
  const deliveries = useQuery(webhookDeliveriesQuery(projectId, webhookId));
  return (
    <Stack gap="xs" component="section" aria-label="Delivery log">
      <Title order={3} size="h4">
        Delivery log
      </Title>
      {deliveries.isPending ? (
        <LoadingState rows={2} />
      ) : deliveries.isError ? (
        <ErrorState error={deliveries.error} onRetry={() => void deliveries.refetch()} />
      ) : deliveries.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          No delivery yet: one is sent when a run starts or finishes.
        </Text>
      ) : (
        <Table aria-label="Deliveries" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Event</Table.Th>
              <Table.Th>Attempt</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Response</Table.Th>
              <Table.Th>Time</Table.Th>
              <Table.Th>When</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {deliveries.data.map((attempt) => (
              <DeliveryRow key={attempt.id} attempt={attempt} />
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

function DeliveryRow({ attempt }: { attempt: WebhookDelivery }) {
  return (
    <Table.Tr>
      <Table.Td>{attempt.eventName}</Table.Td>
      <Table.Td>{attempt.attempt}</Table.Td>
      <Table.Td>
        <StatusBadge status={attemptBadge(attempt.status)} size="xs" />
        <Text span size="xs" ml={4}>
          {attempt.status}
        </Text>
      </Table.Td>
      <Table.Td>
        {attempt.statusCode ?? '—'}
        {attempt.error ? (
          <Text size="xs" c="dimmed">
            {attempt.error}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>{attempt.responseTimeMs === null ? '—' : `${attempt.responseTimeMs} ms`}</Table.Td>
      <Table.Td>
        <Text size="xs" title={formatTime(attempt.attemptedAt ?? attempt.createdAt)}>
          {formatAgo(attempt.attemptedAt ?? attempt.createdAt)}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
