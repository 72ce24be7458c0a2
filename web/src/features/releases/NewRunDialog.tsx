import { Group, Select, TextInput } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import type { Release } from '../../api/queries';
import { AssigneeSelect } from '../../components/AssigneeSelect';
import { DialogForm } from '../../components/DialogForm';
import { useCreateRun } from './api';
import { releaseOptions } from './releaseOptions';
import { RunCasesFields } from './RunCasesFields';
import { choosesNothing, EMPTY_RUN_FORM, newRunOf, type RunForm } from './runForm';

/** Creates the run, then closes the dialog and opens the run. */
function useCreateAndOpen(projectId: string, onClose: () => void) {
  const navigate = useNavigate();
  return useCreateRun(projectId, (runId) => {
    onClose();
    void navigate({
      to: '/projects/$projectId/manual-runs/$runId',
      params: { projectId, runId },
      search: {},
    });
  });
}

/** Creates a manual run from suites, chosen cases or a library filter, then opens it. */
export function NewRunDialog({
  projectId,
  releases,
  onClose,
}: {
  projectId: string;
  releases: Release[];
  onClose: () => void;
}) {
  const [form, setForm] = useState<RunForm>(EMPTY_RUN_FORM);
  const change = (patch: Partial<RunForm>) => setForm((current) => ({ ...current, ...patch }));
  const create = useCreateAndOpen(projectId, onClose);
  return (
    <DialogForm
      title="New manual run"
      onClose={onClose}
      onSubmit={() => create.mutate(newRunOf(form))}
      pending={create.isPending}
      error={create.error}
      submit="Create run"
      disabled={form.name.trim() === '' || choosesNothing(form)}
    >
      <TextInput
        label="Name"
        required
        data-autofocus
        value={form.name}
        maxLength={500}
        onChange={(e) => change({ name: e.currentTarget.value })}
      />
      <RunCasesFields projectId={projectId} form={form} onChange={change} />
      <Group grow>
        <Select
          label="Release"
          data={releaseOptions(releases)}
          value={form.releaseId}
          onChange={(releaseId) => change({ releaseId })}
          clearable
        />
        <AssigneeSelect
          projectId={projectId}
          value={form.assigneeUserId}
          onChange={(assigneeUserId) => change({ assigneeUserId })}
        />
      </Group>
    </DialogForm>
  );
}
