/** The case's attachments, in the attachment gallery the run page's evidence uses too. */
import type { ManualCaseDetail } from '../../api/queries';
import { AttachmentGallery, type GalleryWords } from '../../components/AttachmentGallery';
import { useCaseAttachments } from './api';

const ATTACHMENT_WORDS: GalleryWords = {
  title: 'Attachments',
  headingOrder: 2,
  attachLabel: 'Attach a file',
  listLabel: 'Attached files',
  empty: 'No attachment.',
  emptyForWriters: 'No attachment. Attach screenshots or files, or drop them here.',
  removeTitle: 'Remove attachment',
  removeQuestion: (file) =>
    `Remove ${file.originalFileName} from this case? The file is deleted; the history keeps the removal.`,
};
export function CaseAttachments({
  projectId,
  testCase,
  canWrite,
}: {
  projectId: string;
  testCase: ManualCaseDetail;
  canWrite: boolean;
}) {
  const attachments = useCaseAttachments(projectId, testCase._id);
  return (
    <AttachmentGallery
      words={ATTACHMENT_WORDS}
      attachments={testCase.attachments}
      canWrite={canWrite}
      columns={2}
      onChanged={attachments.refresh}
      upload={attachments.upload}
      remove={(file) => attachments.remove(file._id)}
    />
  );
}
