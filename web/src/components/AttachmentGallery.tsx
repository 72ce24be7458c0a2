/**
 * A gallery of attached files, the same for a case's attachments and a run case's evidence. Images show
 * as thumbnails that open full size, other files as a download link with name and size. Writers upload
 * with the button (keyboard reachable) or by dropping files on the section, and remove a file after a
 * confirmation; readers see the files only. What differs between the two places (the words, the upload
 * and removal calls, the query read again after a change) comes in as props.
 */
import {
  ActionIcon,
  Alert,
  Anchor,
  Button,
  Card,
  Center,
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
} from '@mantine/core';
import { IconFileText, IconPaperclip, IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useState, type DragEvent, type ReactNode } from 'react';
import { describeError } from '../api/client';
import type { ManualCaseDetail } from '../api/queries';
import { ConfirmDialog } from './ConfirmDialog';
import { formatBytes } from './format';

/** A case's attachment and a run case's evidence have one shape. */
export type Attachment = ManualCaseDetail['attachments'][number];

/** The words of one place: its heading, its button, its empty state, its list and its removal dialog. */
export interface GalleryWords {
  title: string;
  headingOrder: 2 | 3;
  attachLabel: string;
  /** The list's accessible name. */
  listLabel: string;
  /** Said when there is nothing; a writer is told how to add (`emptyForWriters`). */
  empty: string;
  emptyForWriters: string;
  removeTitle: string;
  /** The question of the removal dialog for one file. */
  removeQuestion: (file: Attachment) => ReactNode;
}

/**
 * Reads of the owner sign the URLs afresh (valid 15 minutes); a run is read every few seconds, and a new
 * URL would download the image again each time. A URL is kept while it has time left.
 */
const URL_KEPT_MS = 10 * 60 * 1000;

function useSteadyUrl(url: string) {
  const [kept, setKept] = useState({ url, at: Date.now() });
  useEffect(() => {
    if (Date.now() - kept.at > URL_KEPT_MS) setKept({ url, at: Date.now() });
  }, [url, kept.at]);
  return kept.url;
}

/** The multipart body of an upload: the typed client passes it through, the browser sets the boundary. */
export function uploadBody(file: File) {
  const form = new FormData();
  form.append('file', file, file.name);
  return {
    body: form as unknown as { file: string },
    bodySerializer: (body: unknown) => body as FormData,
  };
}

export function AttachmentGallery({
  words,
  attachments,
  canWrite,
  columns = { base: 2, sm: 3 },
  upload,
  remove,
  onChanged,
}: {
  words: GalleryWords;
  attachments: Attachment[];
  canWrite: boolean;
  /** Tiles per row; a narrow column (the case editor's side) wants fewer than the viewport allows. */
  columns?: number | { base: number; sm: number };
  /** Sends one file. */
  upload: (file: File) => Promise<unknown>;
  /** Removes one file. */
  remove: (file: Attachment) => Promise<unknown>;
  /** After an upload or a removal: the owner is read again. */
  onChanged: () => Promise<unknown>;
}) {
  const headingId = useId();
  const [uploading, setUploading] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [removing, setRemoving] = useState<Attachment | null>(null);
  const [opened, setOpened] = useState<Attachment | null>(null);

  const uploads = useMutation({
    // One file after the other: the first refused stops the rest, and its error is shown.
    mutationFn: async (files: File[]) => {
      for (const file of files) {
        setUploading(file.name);
        await upload(file);
      }
    },
    onSettled: async () => {
      setUploading(null);
      await onChanged();
    },
  });
  const removal = useMutation({
    mutationFn: remove,
    onSuccess: async () => {
      await onChanged();
      setRemoving(null);
    },
  });

  const send = (files: File[]) => {
    if (files.length > 0 && !uploads.isPending) uploads.mutate(files);
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
  const error = uploads.isError ? describeError(uploads.error) : null;

  return (
    <Card
      withBorder
      component="section"
      aria-labelledby={headingId}
      {...dropProps}
      style={dragging ? { outline: '2px dashed var(--mantine-primary-color-filled)' } : undefined}
    >
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={words.headingOrder} size="h4" id={headingId}>
            {words.title}
          </Title>
          {canWrite ? (
            <FileButton onChange={send} multiple disabled={uploads.isPending}>
              {(props) => (
                <Button
                  {...props}
                  size="xs"
                  variant="default"
                  leftSection={<IconPaperclip size={14} aria-hidden />}
                  loading={uploads.isPending}
                >
                  {words.attachLabel}
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
            {canWrite ? words.emptyForWriters : words.empty}
          </Text>
        ) : (
          <SimpleGrid cols={columns} spacing="xs" role="list" aria-label={words.listLabel}>
            {attachments.map((file) => (
              <FileTile
                key={file._id}
                file={file}
                canWrite={canWrite}
                onOpen={() => setOpened(file)}
                onRemove={() => {
                  removal.reset();
                  setRemoving(file);
                }}
              />
            ))}
          </SimpleGrid>
        )}
      </Stack>
      <ConfirmDialog
        opened={removing !== null}
        title={words.removeTitle}
        confirmLabel="Remove"
        pending={removal.isPending}
        error={removal.error}
        onConfirm={() => removing && removal.mutate(removing)}
        onClose={() => setRemoving(null)}
      >
        {removing ? words.removeQuestion(removing) : null}
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

function FileTile({
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
          <Anchor
            href={url}
            download={file.originalFileName}
            title={file.originalFileName}
            size="sm"
            lineClamp={1}
          >
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
