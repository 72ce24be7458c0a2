import { Checkbox, Group, Select, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { Webhook } from '../../api/queries';
import { DialogForm } from '../../components/DialogForm';
import { useSaveWebhook } from './api';
import { currentName, EVENTS, type Outcome } from './webhooks';

const OUTCOMES = [
  { value: 'any', label: 'Any' },
  { value: 'failed', label: 'Failed runs' },
  { value: 'passed', label: 'Passed runs' },
];

/** Creates a webhook subscription (its secret goes to `onCreated`) or edits one. */
export function WebhookDialog({
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
  const save = useSaveWebhook(projectId, webhook?.id ?? null, (secret) =>
    secret ? onCreated(secret) : onClose(),
  );
  const subscription = {
    url,
    events: events as (typeof EVENTS)[number][],
    conditions: { outcome },
    description,
  };
  return (
    <DialogForm
      title={webhook ? 'Edit webhook' : 'New webhook'}
      onClose={onClose}
      onSubmit={() => save.mutate(subscription)}
      pending={save.isPending}
      error={save.error}
      submit={webhook ? 'Save' : 'Create webhook'}
      disabled={url.trim() === '' || events.length === 0}
    >
      <UrlInput value={url} onChange={setUrl} />
      <EventsField events={events} onChange={setEvents} />
      <OutcomeSelect value={outcome} onChange={setOutcome} />
      <TextInput
        label="Description"
        value={description}
        maxLength={500}
        onChange={(event) => setDescription(event.currentTarget.value)}
      />
    </DialogForm>
  );
}

function EventsField({ events, onChange }: { events: string[]; onChange: (events: string[]) => void }) {
  return (
    <Checkbox.Group label="Events" value={events} onChange={onChange} required>
      <Group mt={4}>
        {EVENTS.map((event) => (
          <Checkbox key={event} value={event} label={event} />
        ))}
      </Group>
    </Checkbox.Group>
  );
}

function OutcomeSelect({ value, onChange }: { value: Outcome; onChange: (outcome: Outcome) => void }) {
  return (
    <Select
      label="Outcome (run.finished only)"
      data={OUTCOMES}
      value={value}
      onChange={(next) => onChange((next as Outcome | null) ?? 'any')}
      allowDeselect={false}
    />
  );
}

function UrlInput({ value, onChange }: { value: string; onChange: (url: string) => void }) {
  return (
    <TextInput
      label="URL"
      required
      data-autofocus
      placeholder="https://ci.example.com/hooks/verdict"
      value={value}
      maxLength={2000}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  );
}
