import {
  ActionIcon,
  Anchor,
  Center,
  Group,
  Image,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { IconFileText, IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import type { Attachment } from './attachments';
import { formatBytes } from './format';

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

const TILE_HEIGHT = 96;
const TILE_BACKGROUND = 'var(--mantine-color-default-hover)';

/** One attached file: an image's thumbnail (opens full size) or a file icon, its download link and size. */
export function FileTile({
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
  return (
    <Stack gap={4} role="listitem">
      <Thumbnail file={file} url={url} onOpen={onOpen} />
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

function Thumbnail({ file, url, onOpen }: { file: Attachment; url: string; onOpen: () => void }) {
  if (file.mimeType.startsWith('image/'))
    return (
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
    );
  // Same height as an image's thumbnail, so the grid's rows line up.
  return (
    <Center
      h={TILE_HEIGHT}
      bg={TILE_BACKGROUND}
      style={{ borderRadius: 'var(--mantine-radius-sm)' }}
      aria-hidden
    >
      <IconFileText size={32} stroke={1.5} />
    </Center>
  );
}
