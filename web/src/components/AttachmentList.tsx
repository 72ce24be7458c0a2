import { SimpleGrid, Text } from '@mantine/core';
import type { Attachment, GalleryWords } from './attachments';
import { FileTile } from './FileTile';

/** The gallery's tiles, or what to say when there is no file. */
export function AttachmentList({
  words,
  attachments,
  canWrite,
  columns,
  onOpen,
  onRemove,
}: {
  words: GalleryWords;
  attachments: Attachment[];
  canWrite: boolean;
  columns: number | { base: number; sm: number };
  onOpen: (file: Attachment) => void;
  onRemove: (file: Attachment) => void;
}) {
  if (attachments.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {canWrite ? words.emptyForWriters : words.empty}
      </Text>
    );
  return (
    <SimpleGrid cols={columns} spacing="xs" role="list" aria-label={words.listLabel}>
      {attachments.map((file) => (
        <FileTile
          key={file._id}
          file={file}
          canWrite={canWrite}
          onOpen={() => onOpen(file)}
          onRemove={() => onRemove(file)}
        />
      ))}
    </SimpleGrid>
  );
}
