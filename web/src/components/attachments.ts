/** What the attachment gallery shows and says, and the body of an upload. */
import type { ReactNode } from 'react';
import type { ManualCaseDetail } from '../api/queries';

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

/** The multipart body of an upload: the typed client passes it through, the browser sets the boundary. */
export function uploadBody(file: File) {
  const form = new FormData();
  form.append('file', file, file.name);
  return {
    body: form as unknown as { file: string },
    bodySerializer: (body: unknown) => body as FormData,
  };
}
