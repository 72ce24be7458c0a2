import { NumberInput, Select, Textarea } from '@mantine/core';
import { useState } from 'react';
import type { WriteBody } from '../../api/client';
import type { Release } from '../../api/queries';
import { AssigneeSelect } from '../../components/AssigneeSelect';
import { DialogForm } from '../../components/DialogForm';
import { releaseOptions } from '../releases/releaseOptions';
import { useCreateSession } from './api';

/** The session to create; release, assignee and time box only when chosen. */
const newSessionOf = (
  charter: string,
  releaseId: string | null,
  assigneeUserId: string | null,
  timeBox: number | string,
): WriteBody<'/{projectId}/sessions', 'post'> => ({
  charter,
  ...(releaseId ? { releaseId } : {}),
  ...(assigneeUserId ? { assigneeUserId } : {}),
  ...(typeof timeBox === 'number' ? { timeBoxMinutes: timeBox } : {}),
});

/** Creates an exploratory session: its charter, and a release, an assignee and a time box if chosen. */
export function NewSessionDialog({
  projectId,
  releases,
  onClose,
}: {
  projectId: string;
  releases: Release[];
  onClose: () => void;
}) {
  const [charter, setCharter] = useState('');
  const [releaseId, setReleaseId] = useState<string | null>(null);
  const [assigneeUserId, setAssigneeUserId] = useState<string | null>(null);
  const [timeBox, setTimeBox] = useState<number | string>('');
  const create = useCreateSession(projectId, onClose);
  return (
    <DialogForm
      title="New exploratory session"
      onClose={onClose}
      onSubmit={() => create.mutate(newSessionOf(charter, releaseId, assigneeUserId, timeBox))}
      pending={create.isPending}
      error={create.error}
      submit="Create session"
      disabled={charter.trim() === ''}
    >
      <Textarea
        label="Charter"
        description="What to explore, with what, to discover what"
        required
        data-autofocus
        autosize
        minRows={2}
        maxLength={2000}
        value={charter}
        onChange={(e) => setCharter(e.currentTarget.value)}
      />
      <Select
        label="Release"
        data={releaseOptions(releases)}
        value={releaseId}
        onChange={setReleaseId}
        clearable
      />
      <AssigneeSelect projectId={projectId} value={assigneeUserId} onChange={setAssigneeUserId} />
      <TimeBoxInput value={timeBox} onChange={setTimeBox} />
    </DialogForm>
  );
}

function TimeBoxInput({
  value,
  onChange,
}: {
  value: number | string;
  onChange: (value: number | string) => void;
}) {
  return (
    <NumberInput
      label="Time box (minutes)"
      description="How long the session is meant to take; empty for none"
      min={1}
      max={10_080}
      allowDecimal={false}
      allowNegative={false}
      value={value}
      onChange={onChange}
    />
  );
}
