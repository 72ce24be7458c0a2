/**
 * A run case's evidence: the screenshots and logs a tester attaches to the verdict, in the attachment
 * gallery the case editor uses too. The list comes with the run, so other testers see a change at the
 * run's next refresh.
 */
import type { ManualRunCase } from '../../api/queries';
import { AttachmentGallery, type GalleryWords } from '../../components/AttachmentGallery';
import { useRunCaseEvidence } from './api';

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
}: {
  projectId: string;
  runId: string;
  runCase: ManualRunCase;
  canWrite: boolean;
}) {
  // After an upload or a removal, the run is read again.
  const evidence = useRunCaseEvidence(projectId, runId, runCase._id);
  return (
    <AttachmentGallery
      words={WORDS}
      attachments={runCase.attachments}
      canWrite={canWrite}
      onChanged={evidence.refresh}
      upload={evidence.upload}
      remove={(file) => evidence.remove(file._id)}
    />
  );
}
