/** Creates a case by its title, in the suite the library shows (if any); its editor fills in the rest. */
import { TextInput } from '@mantine/core';
import { useState } from 'react';
import { DialogForm } from '../../components/DialogForm';
import { useCreateCase } from './api';

export function NewCaseDialog({
  projectId,
  suiteId,
  onClose,
}: {
  projectId: string;
  suiteId: string | null;
  onClose: () => void;
}) {
  const [title, setTitle] = useState('');
  const create = useCreateCase(projectId, onClose);
  return (
    <DialogForm
      title="New test case"
      onClose={onClose}
      onSubmit={() => create.mutate({ title, ...(suiteId ? { suiteId } : {}) })}
      pending={create.isPending}
      error={create.error}
      submit="Create"
      disabled={title.trim() === ''}
    >
      <TextInput
        label="Title"
        required
        data-autofocus
        maxLength={500}
        value={title}
        onChange={(event) => setTitle(event.currentTarget.value)}
      />
    </DialogForm>
  );
}
