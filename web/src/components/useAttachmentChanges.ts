import { useMutation } from '@tanstack/react-query';
import { useState, type DragEvent } from 'react';
import type { Attachment } from './attachments';

/**
 * The gallery's uploads (one file after the other; the first refused stops the rest) by the button or by
 * dropping files, and its removal of a file after a confirmation; the owner is read again after each.
 */
export function useAttachmentChanges({
  canWrite,
  upload,
  remove,
  onChanged,
}: {
  canWrite: boolean;
  upload: (file: File) => Promise<unknown>;
  remove: (file: Attachment) => Promise<unknown>;
  onChanged: () => Promise<unknown>;
}) {
  const [uploading, setUploading] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Attachment | null>(null);
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
  /** A file's remove button: its dialog opens without the last removal's error. */
  const askRemoval = (file: Attachment) => {
    removal.reset();
    setRemoving(file);
  };
  return { uploads, uploading, send, removal, removing, setRemoving, askRemoval, ...useDrop(canWrite, send) };
}

/** Dropping files on the gallery (writers only) sends them; `dragging` while files are held over it. */
function useDrop(canWrite: boolean, send: (files: File[]) => void) {
  const [dragging, setDragging] = useState(false);
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
  return { dragging, dropProps };
}
