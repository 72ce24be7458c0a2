import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Webhook } from '../../api/queries';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { webhooksQuery } from './api';
import { DeliveryLog } from './DeliveryLog';
import { WebhookRow } from './WebhookRow';

/** The project's webhook subscriptions and the delivery log of the one shown. */
export function WebhooksSection({
  projectId,
  canManage,
  onEdit,
}: {
  projectId: string;
  canManage: boolean;
  /** Opens the dialog for a subscription, or for a new one. */
  onEdit: (webhook: Webhook | 'new') => void;
}) {
  const webhooks = useQuery(webhooksQuery(projectId));
  const [shown, setShown] = useState<string | null>(null);
  return (
    <Stack gap="sm" component="section" aria-label="Webhooks">
      <WebhooksHeader canManage={canManage} onNew={() => onEdit('new')} />
      <Text size="sm" c="dimmed">
        Verdict POSTs run.started and run.finished to these URLs, signed with each subscription’s secret
        (X-Service-Signature). Five failed deliveries in a row disable a subscription.
      </Text>
      {webhooks.isPending ? (
        <LoadingState rows={2} />
      ) : webhooks.isError ? (
        <ErrorState error={webhooks.error} onRetry={() => void webhooks.refetch()} />
      ) : webhooks.data.length === 0 ? (
        <EmptyState title="No webhook yet">
          {canManage
            ? 'Create one to be told when runs start and finish.'
            : 'An owner or an admin can create one.'}
        </EmptyState>
      ) : (
        <WebhooksTable
          projectId={projectId}
          webhooks={webhooks.data}
          canManage={canManage}
          onEdit={onEdit}
          shown={shown}
          onShow={setShown}
        />
      )}
      {shown ? <DeliveryLog projectId={projectId} webhookId={shown} /> : null}
    </Stack>
  );
}

function WebhooksHeader({ canManage, onNew }: { canManage: boolean; onNew: () => void }) {
  return (
    <Group justify="space-between">
      <Title order={2} size="h3">
        Webhooks
      </Title>
      {canManage ? (
        <Button variant="default" leftSection={<IconPlus size={16} aria-hidden />} onClick={onNew}>
          New webhook
        </Button>
      ) : null}
    </Group>
  );
}

function WebhooksTable({
  projectId,
  webhooks,
  canManage,
  onEdit,
  shown,
  onShow,
}: {
  projectId: string;
  webhooks: Webhook[];
  canManage: boolean;
  onEdit: (webhook: Webhook) => void;
  /** The subscription whose delivery log is shown. */
  shown: string | null;
  onShow: (webhookId: string | null) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table aria-label="Webhook subscriptions">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>URL</Table.Th>
            <Table.Th>Events</Table.Th>
            <Table.Th>Outcome</Table.Th>
            <Table.Th>Active</Table.Th>
            <Table.Th>Failures</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {webhooks.map((webhook) => (
            <WebhookRow
              key={webhook.id}
              projectId={projectId}
              webhook={webhook}
              canManage={canManage}
              onEdit={() => onEdit(webhook)}
              showing={shown === webhook.id}
              onShow={() => onShow(shown === webhook.id ? null : webhook.id)}
              onTested={() => onShow(webhook.id)}
            />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
