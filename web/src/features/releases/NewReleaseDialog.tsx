import { Group, Select, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { WriteBody } from '../../api/client';
import { DialogForm } from '../../components/DialogForm';
import { useCreateRelease } from './api';

type ReleaseStatus = 'planned' | 'active' | 'completed';

const STATUSES = [
  { value: 'planned', label: 'Planned' },
  { value: 'active', label: 'Active' },
  { value: 'completed', label: 'Completed' },
];

/** The release to create; the dates only when set. */
const releaseOf = (
  name: string,
  status: ReleaseStatus,
  startDate: string,
  dueDate: string,
): WriteBody<'/{projectId}/releases', 'post'> => ({
  name,
  status,
  ...(startDate ? { startDate } : {}),
  ...(dueDate ? { dueDate } : {}),
});

/** Creates a release with its name, dates (optional) and status. */
export function NewReleaseDialog({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const [name, setName] = useState('');
  const [startDate, setStartDate] = useState('');
  const [dueDate, setDueDate] = useState('');
  const [status, setStatus] = useState<ReleaseStatus>('planned');
  const create = useCreateRelease(projectId, onClose);
  return (
    <DialogForm
      title="New release"
      onClose={onClose}
      onSubmit={() => create.mutate(releaseOf(name, status, startDate, dueDate))}
      pending={create.isPending}
      error={create.error}
      submit="Create release"
      disabled={name.trim() === ''}
    >
      <TextInput
        label="Name"
        required
        data-autofocus
        value={name}
        maxLength={500}
        onChange={(e) => setName(e.currentTarget.value)}
      />
      <Group grow>
        <TextInput
          label="Start date"
          type="date"
          value={startDate}
          onChange={(e) => setStartDate(e.currentTarget.value)}
        />
        <TextInput
          label="Due date"
          type="date"
          value={dueDate}
          onChange={(e) => setDueDate(e.currentTarget.value)}
        />
        <StatusSelect value={status} onChange={setStatus} />
      </Group>
    </DialogForm>
  );
}

function StatusSelect({
  value,
  onChange,
}: {
  value: ReleaseStatus;
  onChange: (status: ReleaseStatus) => void;
}) {
  return (
    <Select
      label="Status"
      data={STATUSES}
      value={value}
      onChange={(next) => onChange((next as ReleaseStatus | null) ?? 'planned')}
      allowDeselect={false}
    />
  );
}
