/**
 * A gallery of attached files, the same for a case's attachments and a run case's evidence. Images show
 * as thumbnails that open full size, other files as a download link with name and size. Writers upload
 * with the button (keyboard reachable) or by dropping files on the section, and remove a file after a
 * confirmation; readers see the files only. What differs between the two places (the words, the upload
 * and removal calls, the query read again after a change) comes in as props.
 */
import {
  Alert,
  Button,
  Card,
  FileButton,
  Group,
  Image,
  Modal,
  Progress,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconPaperclip } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { describeError } from '../api/client';
import { AttachmentList } from './AttachmentList';
import type { Attachment, GalleryWords } from './attachments';
import { ConfirmDialog } from './ConfirmDialog';
import { useAttachmentChanges } from './useAttachmentChanges';

export { uploadBody, type Attachment, type GalleryWords } from './attachments';

export interface AttachmentGalleryProps {
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
}

export function AttachmentGallery({
  words,
  attachments,
  canWrite,
  columns = { base: 2, sm: 3 },
  upload,
  remove,
  onChanged,
}: AttachmentGalleryProps) {
  const headingId = useId();
  const [opened, setOpened] = useState<Attachment | null>(null);
  const changes = useAttachmentChanges({ canWrite, upload, remove, onChanged });
  const { uploads, removal, removing, setRemoving } = changes;
  return (
    <Card
      withBorder
      component="section"
      aria-labelledby={headingId}
      {...changes.dropProps}
      style={changes.dragging ? { outline: '2px dashed var(--mantine-primary-color-filled)' } : undefined}
    >
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={words.headingOrder} size="h4" id={headingId}>
            {words.title}
          </Title>
          {canWrite ? (
            <UploadButton label={words.attachLabel} pending={uploads.isPending} onFiles={changes.send} />
          ) : null}
        </Group>
        <UploadStatus uploading={changes.uploading} error={uploads.isError ? uploads.error : null} />
        <AttachmentList
          words={words}
          attachments={attachments}
          canWrite={canWrite}
          columns={columns}
          onOpen={setOpened}
          onRemove={changes.askRemoval}
        />
      </Stack>
      <RemoveDialog words={words} removing={removing} removal={removal} onClose={() => setRemoving(null)} />
      <FullSize file={opened} onClose={() => setOpened(null)} />
    </Card>
  );
}

/** An image full size, over the page. */
function FullSize({ file, onClose }: { file: Attachment | null; onClose: () => void }) {
  return (
    <Modal opened={file !== null} onClose={onClose} title={file?.originalFileName} size="auto">
      {file ? <Image src={file.blobUrl} alt={file.originalFileName} maw="90vw" mah="80vh" /> : null}
    </Modal>
  );
}

/** Asks before the file is removed; the removal's error shows in it. */
function RemoveDialog({
  words,
  removing,
  removal,
  onClose,
}: {
  words: GalleryWords;
  removing: Attachment | null;
  removal: ReturnType<typeof useAttachmentChanges>['removal'];
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      opened={removing !== null}
      title={words.removeTitle}
      confirmLabel="Remove"
      pending={removal.isPending}
      error={removal.error}
      onConfirm={() => removing && removal.mutate(removing)}
      onClose={onClose}
    >
      {removing ? words.removeQuestion(removing) : null}
    </ConfirmDialog>
  );
}

function UploadButton({
  label,
  pending,
  onFiles,
}: {
  label: string;
  pending: boolean;
  onFiles: (files: File[]) => void;
}) {
  return (
    <FileButton onChange={onFiles} multiple disabled={pending}>
      {(props) => (
        <Button
          {...props}
          size="xs"
          variant="default"
          leftSection={<IconPaperclip size={14} aria-hidden />}
          loading={pending}
        >
          {label}
        </Button>
      )}
    </FileButton>
  );
}

/** The file being uploaded, and why the last upload was refused. */
function UploadStatus({ uploading, error }: { uploading: string | null; error: unknown }) {
  const refused = error ? describeError(error) : null;
  return (
    <>
      {uploading !== null ? (
        <Stack gap={2} role="status" aria-label="Upload">
          <Text size="xs">Uploading {uploading}…</Text>
          <Progress value={100} animated striped size="sm" aria-hidden />
        </Stack>
      ) : null}
      {refused ? (
        <Alert color="red" variant="light" title={refused.title} role="alert">
          {refused.message}
        </Alert>
      ) : null}
    </>
  );
}
