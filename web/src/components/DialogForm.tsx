import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { describeError } from '../api/client';

/**
 * A form in a dialog: its fields, the error of the last submission (as the API said it), Cancel and the
 * submit button (Enter submits). Every "New …" and "Edit …" dialog of the app, and the deletions that may
 * be refused (`danger`: the submit button is red), whose refusal stays in the dialog.
 */
export function DialogForm({
  title,
  onClose,
  onSubmit,
  pending,
  error,
  submit,
  disabled,
  danger = false,
  children,
}: {
  title: string;
  onClose: () => void;
  onSubmit: () => void;
  pending: boolean;
  error: unknown;
  submit: string;
  disabled: boolean;
  danger?: boolean;
  children: ReactNode;
}) {
  const described = error ? describeError(error) : null;
  return (
    <Modal opened onClose={onClose} title={title} size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <Stack>
          {children}
          {described ? (
            <Alert color="red" variant="light" title={described.title} role="alert">
              {described.message}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" color={danger ? 'red' : undefined} loading={pending} disabled={disabled}>
              {submit}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
