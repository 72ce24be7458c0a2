/**
 * A run case's evidence: the screenshots and logs a tester attaches to the verdict, in the attachment
 * gallery the case editor uses too. The list comes with the run, so other testers see a change at the
 * run's next refresh.
 */
import { unwrap } from '@verdict/client';
import { verdict as api } from '../../api/client';
import type { ManualRunCase } from '../../api/queries';
import { AttachmentGallery, uploadBody, type GalleryWords } from '../../components/AttachmentGallery';

const WORDS: GalleryWords = {
  title: 'Evidence',
  headingOrder: 3,
  attachLabel: 'Attach evidence',
  listLabel: 'Evidence files',
  empty: 'No evidence yet.',
  emptyForWriters: 'No evidence yet. Attach screenshots or logs, or drop files here.',
  removeTitle: 'Remove evidence',
  removeQuestion: (file) =>
    `Remove ${file.originalFileName} from this run case? The file is deleted; the history keeps the removal.`,
};

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
  return (
    <AttachmentGallery
      words={WORDS}
      attachments={runCase.attachments}
      canWrite={canWrite}
      onChanged={onChanged}
      upload={async (file) =>
        unwrap(
          await api.api.POST('/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments', {
            params: { path },
            ...uploadBody(file),
          }),
        )
      }
      remove={async (file) =>
        unwrap(
          await api.api.DELETE(
            '/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments/{attachmentId}',
            { params: { path: { ...path, attachmentId: file._id } } },
          ),
        )
      }
    />
  );
}
