import { Badge, Button, Group, Switch, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { describeError } from '../../api/client';
import type { Webhook, WebhookDelivery } from '../../api/queries';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useDeleteWebhook, useToggleWebhook } from './api';
import { useSendTest } from './useSendTest';
import { currentName, testOutcomeOf } from './webhooks';

type SendTest = ReturnType<typeof useSendTest>;

/** A subscription: URL, events, outcome, active switch, failures; its deliveries and a manager's actions. */
export function WebhookRow({
  projectId,
  webhook,
  canManage,
  onEdit,
  showing,
  onShow,
  onTested,
}: {
  projectId: string;
  webhook: Webhook;
  canManage: boolean;
  onEdit: () => void;
  showing: boolean;
  onShow: () => void;
  /** A test event was queued: its log is to be shown. */
  onTested: () => void;
}) {
  const toggle = useToggleWebhook(projectId, webhook.id);
  const test = useSendTest(projectId, webhook.id, onTested);
  return (
    <Table.Tr>
      <UrlCell webhook={webhook} error={toggle.error ?? test.error} test={test} />
      <Table.Td>
        <Group gap={4}>
          {webhook.events.map((event) => (
            <Badge key={event} variant="outline" color="gray" size="sm">
              {currentName(event)}
            </Badge>
          ))}
        </Group>
      </Table.Td>
      <Table.Td>{webhook.conditions.outcome}</Table.Td>
      <ActiveCell webhook={webhook} canManage={canManage} toggle={toggle} />
      <Table.Td>{webhook.failureCount}</Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Button size="compact-xs" variant="default" onClick={onShow} aria-expanded={showing}>
            {showing ? 'Hide deliveries' : 'Deliveries'}
          </Button>
          {canManage ? (
            <ManageButtons projectId={projectId} webhook={webhook} onEdit={onEdit} test={test} />
          ) : null}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** The switch that pauses or re-enables the subscription, with its state in words. */
function ActiveCell({
  webhook,
  canManage,
  toggle,
}: {
  webhook: Webhook;
  canManage: boolean;
  toggle: ReturnType<typeof useToggleWebhook>;
}) {
  return (
    <Table.Td>
      <Switch
        aria-label={`Active: ${webhook.url}`}
        checked={webhook.active}
        disabled={!canManage || toggle.isPending}
        onChange={(event) => toggle.mutate(event.currentTarget.checked)}
        label={webhook.active ? 'on' : webhook.disabledAt ? 'disabled by failures' : 'paused'}
      />
    </Table.Td>
  );
}

/** The URL with its description, the last error of a toggle or a test, and the test's outcome. */
function UrlCell({ webhook, error, test }: { webhook: Webhook; error: unknown; test: SendTest }) {
  return (
    <Table.Td maw={360}>
      <Text size="sm" className="mono" lineClamp={1} title={webhook.url}>
        {webhook.url}
      </Text>
      {webhook.description ? (
        <Text size="xs" c="dimmed">
          {webhook.description}
        </Text>
      ) : null}
      {error ? (
        <Text size="xs" c="red" role="alert">
          {describeError(error).message}
        </Text>
      ) : null}
      <TestOutcome sent={test.sent} attempt={test.attempt} />
    </Table.Td>
  );
}

/** What became of the last test event, announced politely to screen readers. */
function TestOutcome({ sent, attempt }: { sent: string | null; attempt: WebhookDelivery | undefined }) {
  if (sent === null) return null;
  const { text, failed } = testOutcomeOf(attempt);
  return (
    <Text size="xs" role="status" c={failed ? 'red' : undefined}>
      {text}
    </Text>
  );
}

/** A manager's actions: edit, send a test event, delete (after confirming). */
function ManageButtons({
  projectId,
  webhook,
  onEdit,
  test,
}: {
  projectId: string;
  webhook: Webhook;
  onEdit: () => void;
  test: SendTest;
}) {
  const remove = useDeleteWebhook(projectId, webhook.id);
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <Button size="compact-xs" variant="default" onClick={onEdit}>
        Edit
      </Button>
      <Button
        size="compact-xs"
        variant="default"
        loading={test.isPending}
        onClick={test.send}
        aria-label={`Send test event: ${webhook.url}`}
      >
        Send test event
      </Button>
      <Button size="compact-xs" variant="default" onClick={() => setConfirming(true)}>
        Delete
      </Button>
      <ConfirmDialog
        opened={confirming}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate()}
        onClose={() => setConfirming(false)}
      >
        {`${webhook.url} gets no more deliveries. This cannot be undone.`}
      </ConfirmDialog>
    </>
  );
}
