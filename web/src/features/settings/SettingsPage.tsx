import { getRouteApi } from '@tanstack/react-router';
/**
 * Project settings: the webhook subscriptions (spec §4.9, §6). Every member reads them and their delivery
 * log (status, response code, time); owners and admins create them (the signing secret is shown once, to
 * copy), edit, pause or re-enable, send a test event to and delete them. Below them, the person's own
 * tokens (settings/OwnTokensSection).
 */
import {
  Badge,
  Button,
  Checkbox,
  Group,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { describeError } from '../../api/client';
import { type Webhook, type WebhookDelivery } from '../../api/queries';
import { useCanManageWebhooks } from '../../api/role';
import { StatusBadge } from '../../components/badges';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DialogForm } from '../../components/DialogForm';
import { SecretOnceDialog } from '../../components/SecretOnceDialog';
import { formatAgo, formatTime } from '../../components/format';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import {
  useDeleteWebhook,
  useSaveWebhook,
  useSendWebhookTest,
  useToggleWebhook,
  webhookDeliveriesQuery,
  webhooksQuery,
} from './api';
import { OwnTokensSection } from './OwnTokensSection';

const route = getRouteApi('/signed-in/projects/$projectId/settings');

const EVENTS = ['run.started', 'run.finished'] as const;
type Outcome = 'any' | 'failed' | 'passed';

/** Both spellings of spec §6 read as the current one. */
const currentName = (event: string) =>
  event === 'RUN_STARTED' ? 'run.started' : event === 'RUN_FINISHED' ? 'run.finished' : event;

export function SettingsPage() {
  const { projectId } = route.useParams();
  const canManage = useCanManageWebhooks(projectId);
  const webhooks = useQuery(webhooksQuery(projectId));
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [shown, setShown] = useState<string | null>(null);

  return (
    <Stack>
      <Title order={1} size="h2">
        Project settings
      </Title>
      <Stack gap="sm" component="section" aria-label="Webhooks">
        <Group justify="space-between">
          <Title order={2} size="h3">
            Webhooks
          </Title>
          {canManage ? (
            <Button
              variant="default"
              leftSection={<IconPlus size={16} aria-hidden />}
              onClick={() => setEditing('new')}
            >
              New webhook
            </Button>
          ) : null}
        </Group>
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
                {webhooks.data.map((webhook) => (
                  <WebhookRow
                    key={webhook.id}
                    projectId={projectId}
                    webhook={webhook}
                    canManage={canManage}
                    onEdit={() => setEditing(webhook)}
                    showing={shown === webhook.id}
                    onShow={() => setShown(shown === webhook.id ? null : webhook.id)}
                    onTested={() => setShown(webhook.id)}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {shown ? <Deliveries projectId={projectId} webhookId={shown} /> : null}
      </Stack>
      <OwnTokensSection projectId={projectId} />
      {editing ? (
        <WebhookDialog
          projectId={projectId}
          webhook={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onCreated={(created) => {
            setSecret(created);
            setEditing(null);
          }}
        />
      ) : null}
      <SecretOnceDialog
        secret={secret}
        title="The webhook’s signing secret"
        name="signing secret"
        onClose={() => setSecret(null)}
      >
        Your receiver checks each delivery’s X-Service-Signature with it.
      </SecretOnceDialog>
    </Stack>
  );
}

function WebhookRow({
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
  const remove = useDeleteWebhook(projectId, webhook.id);
  const test = useSendTest(projectId, webhook.id, onTested);
  const [confirming, setConfirming] = useState(false);
  const error = toggle.error ?? test.error;
  return (
    <Table.Tr>
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
      <Table.Td>
        <Switch
          aria-label={`Active: ${webhook.url}`}
          checked={webhook.active}
          disabled={!canManage || toggle.isPending}
          onChange={(event) => toggle.mutate(event.currentTarget.checked)}
          label={webhook.active ? 'on' : webhook.disabledAt ? 'disabled by failures' : 'paused'}
        />
      </Table.Td>
      <Table.Td>{webhook.failureCount}</Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Button size="compact-xs" variant="default" onClick={onShow} aria-expanded={showing}>
            {showing ? 'Hide deliveries' : 'Deliveries'}
          </Button>
          {canManage ? (
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
          ) : null}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Sends a `webhook.test` event, then follows its attempt in the delivery log (asked again every second
 * until the attempt is made), so the row can say how the receiver answered.
 */
function useSendTest(projectId: string, webhookId: string, onQueued: () => void) {
  const [sent, setSent] = useState<string | null>(null);
  const send = useSendWebhookTest(projectId, webhookId, (deliveryId) => {
    setSent(deliveryId);
    onQueued();
  });
  const log = useQuery({
    ...webhookDeliveriesQuery(projectId, webhookId),
    enabled: sent !== null,
    // Until the attempt is made: it is not listed yet, then listed as pending.
    refetchInterval: (query) =>
      (attemptOf(query.state.data, sent)?.status ?? 'pending') === 'pending' ? 1_000 : false,
  });
  return {
    sent,
    attempt: attemptOf(log.data, sent),
    isPending: send.isPending,
    error: send.error,
    send: () => {
      setSent(null);
      send.mutate();
    },
  };
}

/** The latest attempt of one delivery in a log (newest first). */
function attemptOf(log: WebhookDelivery[] | undefined, deliveryId: string | null) {
  return deliveryId === null ? undefined : log?.find((attempt) => attempt.deliveryId === deliveryId);
}

/** What became of the last test event, announced politely to screen readers. */
function TestOutcome({ sent, attempt }: { sent: string | null; attempt: WebhookDelivery | undefined }) {
  if (sent === null) return null;
  const made = attempt !== undefined && attempt.status !== 'pending';
  const text = !made
    ? 'Test event queued…'
    : attempt.status === 'succeeded'
      ? `Test event delivered: ${attempt.statusCode ?? ''} in ${attempt.responseTimeMs ?? 0} ms`
      : `Test event failed: ${attempt.statusCode ?? attempt.error ?? 'no answer'}`;
  return (
    <Text size="xs" role="status" c={made && attempt.status === 'failed' ? 'red' : undefined}>
      {text}
    </Text>
  );
}

function Deliveries({ projectId, webhookId }: { projectId: string; webhookId: string }) {
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
              <Table.Tr key={attempt.id}>
                <Table.Td>{attempt.eventName}</Table.Td>
                <Table.Td>{attempt.attempt}</Table.Td>
                <Table.Td>
                  <StatusBadge
                    status={
                      attempt.status === 'succeeded'
                        ? 'passed'
                        : attempt.status === 'failed'
                          ? 'failed'
                          : 'running'
                    }
                    size="xs"
                  />
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
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

function WebhookDialog({
  projectId,
  webhook,
  onClose,
  onCreated,
}: {
  projectId: string;
  webhook: Webhook | null;
  onClose: () => void;
  onCreated: (secret: string) => void;
}) {
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [events, setEvents] = useState<string[]>(
    webhook ? webhook.events.map(currentName) : ['run.finished'],
  );
  const [outcome, setOutcome] = useState<Outcome>(webhook?.conditions.outcome ?? 'any');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const save = useSaveWebhook(projectId, webhook?.id ?? null, (secret) => {
    if (secret) onCreated(secret);
    else onClose();
  });
  return (
    <DialogForm
      title={webhook ? 'Edit webhook' : 'New webhook'}
      onClose={onClose}
      onSubmit={() =>
        save.mutate({
          url,
          events: events as (typeof EVENTS)[number][],
          conditions: { outcome },
          description,
        })
      }
      pending={save.isPending}
      error={save.error}
      submit={webhook ? 'Save' : 'Create webhook'}
      disabled={url.trim() === '' || events.length === 0}
    >
      <TextInput
        label="URL"
        required
        data-autofocus
        placeholder="https://ci.example.com/hooks/verdict"
        value={url}
        maxLength={2000}
        onChange={(event) => setUrl(event.currentTarget.value)}
      />
      <Checkbox.Group label="Events" value={events} onChange={setEvents} required>
        <Group mt={4}>
          {EVENTS.map((event) => (
            <Checkbox key={event} value={event} label={event} />
          ))}
        </Group>
      </Checkbox.Group>
      <Select
        label="Outcome (run.finished only)"
        data={[
          { value: 'any', label: 'Any' },
          { value: 'failed', label: 'Failed runs' },
          { value: 'passed', label: 'Passed runs' },
        ]}
        value={outcome}
        onChange={(value) => setOutcome((value as Outcome | null) ?? 'any')}
        allowDeselect={false}
      />
      <TextInput
        label="Description"
        value={description}
        maxLength={500}
        onChange={(event) => setDescription(event.currentTarget.value)}
      />
    </DialogForm>
  );
}
