/**
 * A run case's evidence: the screenshots and logs a tester attaches to the verdict. Images show as
 * thumbnails that open full size, other files as a download link with name and size. Testers upload with
 * the button (keyboard reachable) or by dropping files on the section, and remove a file after a
 * confirmation; viewers see the files only. The list comes with the run, so other testers see a change at
 * the run's next refresh.
 */
import {
  Alert,
  Anchor,
  Button,
  FileButton,
  Group,
  Image,
  Modal,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Title,
  Tooltip,
  UnstyledButton,
  ActionIcon,
  Card,
  Center,
} from '@mantine/core';
import { IconFileText, IconPaperclip, IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { useEffect, useState, type DragEvent } from 'react';
import { describeError, verdict as api } from '../api/client';
import type { ManualRunCase } from '../api/queries';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { formatBytes } from '../components/format';

type Attachment = ManualRunCase['attachments'][number];

/**
 * Every read of the run signs the URLs afresh (valid 15 minutes); the run is read every few seconds, and a
 * new URL would download the image again each time. A URL is kept while it has time left.
 */
const URL_KEPT_MS = 10 * 60 * 1000;

function useSteadyUrl(url: string) {
  const [kept, setKept] = useState({ url, at: Date.now() });
  useEffect(() => {
    if (Date.now() - kept.at > URL_KEPT_MS) setKept({ url, at: Date.now() });
  }, [url, kept.at]);
  return kept.url;
}

export function RunEvidence({
  projectId,
  runId,
  runCase,
  canWrite,
  onChanged,
}: {
  projectId: string;
  runId: string;
  runCase: ManualRunCase;
  canWrite: boolean;
  /** After an upload or a removal: the run is read again. */
  onChanged: () => Promise<unknown>;
}) {
  const path = { projectId, runId, runCaseId: runCase._id };
  const [uploading, setUploading] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [removing, setRemoving] = useState<Attachment | null>(null);
  const [opened, setOpened] = useState<Attachment | null>(null);

  const upload = useMutation({
    // One file after the other: the first refused stops the rest, and its error is shown.
    mutationFn: async (files: File[]) => {
      for (const file of files) {
        setUploading(file.name);
        const form = new FormData();
        form.append('file', file, file.name);
        unwrap(
          await api.api.POST('/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments', {
            params: { path },
            // The browser sets the multipart boundary itself.
            body: form as unknown as { file: string },
            bodySerializer: (body) => body as unknown as FormData,
          }),
        );
      }
    },
    onSettled: async () => {
      setUploading(null);
      await onChanged();
    },
  });
  const remove = useMutation({
    mutationFn: async (attachment: Attachment) =>
      unwrap(
        await api.api.DELETE(
          '/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments/{attachmentId}',
          { params: { path: { ...path, attachmentId: attachment._id } } },
        ),
      ),
    onSuccess: async () => {
      await onChanged();
      setRemoving(null);
    },
  });

  const send = (files: File[]) => {
    if (files.length > 0 && !upload.isPending) upload.mutate(files);
  };
  const dropProps = canWrite
    ? {
        onDragOver: (event: DragEvent) => {
          if (!event.dataTransfer.types.includes('Files')) return;
          event.preventDefault();
          setDragging(true);
        },
        onDragLeave: () => setDragging(false),
        onDrop: (event: DragEvent) => {
          event.preventDefault();
          setDragging(false);
          send([...event.dataTransfer.files]);
        },
      }
    : {};
  const error = upload.isError ? describeError(upload.error) : null;
  const { attachments } = runCase;

  return (
    <Card
      withBorder
      component="section"
      aria-labelledby={`evidence-${runCase._id}`}
      {...dropProps}
      style={dragging ? { outline: '2px dashed var(--mantine-primary-color-filled)' } : undefined}
    >
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} size="h4" id={`evidence-${runCase._id}`}>
            Evidence
          </Title>
          {canWrite ? (
            <FileButton onChange={send} multiple disabled={upload.isPending}>
              {(props) => (
                <Button
                  {...props}
                  size="xs"
                  variant="default"
                  leftSection={<IconPaperclip size={14} aria-hidden />}
                  loading={upload.isPending}
                >
                  Attach evidence
                </Button>
              )}
            </FileButton>
          ) : null}
        </Group>
        {uploading !== null ? (
          <Stack gap={2} role="status" aria-label="Upload">
            <Text size="xs">Uploading {uploading}…</Text>
            <Progress value={100} animated striped size="sm" aria-hidden />
          </Stack>
        ) : null}
        {error ? (
          <Alert color="red" variant="light" title={error.title} role="alert">
            {error.message}
          </Alert>
        ) : null}
        {attachments.length === 0 ? (
          <Text size="sm" c="dimmed">
            {canWrite
              ? 'No evidence yet. Attach screenshots or logs, or drop files here.'
              : 'No evidence yet.'}
          </Text>
        ) : (
          <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="xs" role="list" aria-label="Evidence files">
            {attachments.map((file) => (
              <EvidenceItem
                key={file._id}
                file={file}
                canWrite={canWrite}
                onOpen={() => setOpened(file)}
                onRemove={() => {
                  remove.reset();
                  setRemoving(file);
                }}
              />
            ))}
          </SimpleGrid>
        )}
      </Stack>
      <ConfirmDialog
        opened={removing !== null}
        title="Remove evidence"
        confirmLabel="Remove"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => removing && remove.mutate(removing)}
        onClose={() => setRemoving(null)}
      >
        Remove {removing?.originalFileName} from this run case? The file is deleted; the history keeps the
        removal.
      </ConfirmDialog>
      <Modal
        opened={opened !== null}
        onClose={() => setOpened(null)}
        title={opened?.originalFileName}
        size="auto"
      >
        {opened ? <Image src={opened.blobUrl} alt={opened.originalFileName} maw="90vw" mah="80vh" /> : null}
      </Modal>
    </Card>
  );
}

const TILE_HEIGHT = 96;
const TILE_BACKGROUND = 'var(--mantine-color-default-hover)';

function EvidenceItem({
  file,
  canWrite,
  onOpen,
  onRemove,
}: {
  file: Attachment;
  canWrite: boolean;
  onOpen: () => void;
  onRemove: () => void;
}) {
  const url = useSteadyUrl(file.blobUrl);
  const image = file.mimeType.startsWith('image/');
  return (
    <Stack gap={4} role="listitem">
      {image ? (
        <UnstyledButton onClick={onOpen} aria-label={`Open ${file.originalFileName} full size`}>
          <Image
            src={url}
            alt={file.originalFileName}
            radius="sm"
            h={TILE_HEIGHT}
            fit="contain"
            bg={TILE_BACKGROUND}
          />
        </UnstyledButton>
      ) : (
        // Same height as an image's thumbnail, so the grid's rows line up.
        <Center
          h={TILE_HEIGHT}
          bg={TILE_BACKGROUND}
          style={{ borderRadius: 'var(--mantine-radius-sm)' }}
          aria-hidden
        >
          <IconFileText size={32} stroke={1.5} />
        </Center>
      )}
      <Group gap={4} justify="space-between" wrap="nowrap">
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Anchor href={url} download={file.originalFileName} size="sm" lineClamp={1}>
            {file.originalFileName}
          </Anchor>
          <Text size="xs" c="dimmed">
            {formatBytes(file.fileSize)}
          </Text>
        </Stack>
        {canWrite ? (
          <Tooltip label="Remove">
            <ActionIcon
              variant="subtle"
              color="red"
              size="sm"
              onClick={onRemove}
              aria-label={`Remove ${file.originalFileName}`}
            >
              <IconTrash size={14} aria-hidden />
            </ActionIcon>
          </Tooltip>
        ) : null}
      </Group>
    </Stack>
  );
}
