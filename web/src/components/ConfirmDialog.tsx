import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { describeError } from '../api/client';

/**
 * Asks before an action that cannot be undone (revoke a token, delete a subscription). Cancel is focused
 * first, so Enter on an opened dialog never confirms by accident; the action's error stays in the dialog.
 */
export function ConfirmDialog({
  opened,
  title,
  children,
  confirmLabel,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const failure = error ? describeError(error) : null;
  return (
    <Modal opened={opened} onClose={onClose} title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        <Text size="sm">{children}</Text>
        {failure ? (
          <Alert color="red" variant="light" title={failure.title} role="alert">
            {failure.message}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red" loading={pending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
