import { Checkbox, Select, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { Session } from '../../api/queries';
import { DialogForm } from '../../components/DialogForm';
import { useIssueToken } from './api';
import { EXPIRIES, expiresAtOf } from './ownTokens';

/** Issues a token with a name, an expiry and projects; `onIssued` gets its secret. */
export function IssueTokenDialog({
  projectId,
  projects,
  onClose,
  onIssued,
}: {
  projectId: string;
  projects: Session['projects'];
  onClose: () => void;
  onIssued: (secret: string) => void;
}) {
  const [name, setName] = useState('');
  const [days, setDays] = useState('90');
  // Least reach by default: the project whose settings these are.
  const [projectIds, setProjectIds] = useState<string[]>([projectId]);
  const issue = useIssueToken(onIssued);
  return (
    <DialogForm
      title="New token"
      onClose={onClose}
      onSubmit={() => issue.mutate({ name, projectIds, expiresAt: expiresAtOf(days) })}
      pending={issue.isPending}
      error={issue.error}
      submit="Issue token"
      disabled={name.trim() === '' || projectIds.length === 0}
    >
      <TextInput
        label="Name"
        description="Where it will be used: a CI job, a laptop"
        required
        data-autofocus
        value={name}
        maxLength={100}
        onChange={(event) => setName(event.currentTarget.value)}
      />
      <Select
        label="Expires after"
        data={EXPIRIES}
        value={days}
        onChange={(value) => setDays(value ?? '90')}
        allowDeselect={false}
      />
      <ProjectsField projects={projects} value={projectIds} onChange={setProjectIds} />
    </DialogForm>
  );
}

function ProjectsField({
  projects,
  value,
  onChange,
}: {
  projects: Session['projects'];
  value: string[];
  onChange: (projectIds: string[]) => void;
}) {
  return (
    <Checkbox.Group label="Projects" value={value} onChange={onChange} required>
      <Stack gap={4} mt={4}>
        {projects.map((project) => (
          <Checkbox
            key={project.id}
            value={project.id}
            label={`${project.organizationName} / ${project.name} (${project.role ?? 'no role'})`}
          />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}
