import { Alert, Button, Group, TextInput } from '@mantine/core';
import { describeError } from '../../api/client';
import type { ExploratorySession } from '../../api/queries';
import type { useUpdateSession } from './api';
import { notesAndFindings } from './sessionTime';

/** A writer's controls of a session: a new finding, saving notes and findings, start or complete; the error of the last update. */
export function SessionControls({
  session,
  notes,
  finding,
  onFinding,
  update,
}: {
  session: ExploratorySession;
  notes: string;
  finding: string;
  onFinding: (finding: string) => void;
  update: ReturnType<typeof useUpdateSession>;
}) {
  const error = update.isError ? describeError(update.error) : null;
  return (
    <>
      <TextInput
        label="New finding"
        size="xs"
        value={finding}
        maxLength={500}
        onChange={(e) => onFinding(e.currentTarget.value)}
      />
      <Group gap="xs">
        <Button
          size="xs"
          variant="default"
          loading={update.isPending}
          onClick={() => update.mutate(notesAndFindings(notes, finding, session.findings))}
        >
          Save notes and findings
        </Button>
        {session.status === 'planned' ? (
          <Button size="xs" variant="default" onClick={() => update.mutate({ status: 'in_progress' })}>
            Start
          </Button>
        ) : session.status === 'in_progress' ? (
          <Button size="xs" variant="default" onClick={() => update.mutate({ status: 'completed' })}>
            Complete
          </Button>
        ) : null}
      </Group>
      {error ? (
        <Alert color="red" variant="light" title={error.title} role="alert">
          {error.message}
        </Alert>
      ) : null}
    </>
  );
}
