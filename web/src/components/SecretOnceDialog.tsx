import { Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { CopyText } from './CopyButton';

/**
 * A secret the API answers once (a webhook's signing secret, a new token): shown with a copy button until
 * the person says they have it. Closed, it is gone from the page; nothing keeps it.
 */
export function SecretOnceDialog({
  secret,
  title,
  name,
  children,
  onClose,
}: {
  /** Null: the dialog is closed. */
  secret: string | null;
  title: string;
  /** What the secret is, lower case ("secret", "token"): the label of the text and of the copy button. */
  name: string;
  /** How to use it, after "Copy it now: it is shown this once." */
  children: ReactNode;
  onClose: () => void;
}) {
  return (
    <Modal opened={secret !== null} onClose={onClose} title={title}>
      <Stack>
        <Text size="sm">Copy it now: it is shown this once. {children}</Text>
        <Code block aria-label={name.charAt(0).toUpperCase() + name.slice(1)}>
          {secret}
        </Code>
        <Group justify="space-between">
          <CopyText value={secret ?? ''} label={`Copy the ${name}`} />
          <Button variant="default" onClick={onClose}>
            I have copied it
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
