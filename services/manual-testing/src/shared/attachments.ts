/**
 * Receiving an attachment (a case's file, a run case's evidence): the multipart `file` streams into the
 * blob store, then the aggregate records it. The blob is only worth keeping if the record was made, so a
 * refused record deletes it again.
 */
import type { AttachmentRecord } from '@verdict/contracts';
import { AppError, newId, receiveUpload, ValidationError, type ProjectContext } from '@verdict/platform';
import type { RouteDeps } from './routeDeps';

/** A file name safe in a blob key and a download header: letters, digits, dot, dash, underscore. */
export const safeFileName = (name: string) =>
  name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 120) || 'attachment';

/**
 * Stores the upload under `<keyPrefix>/<new id>` and hands its record to `record` (which appends the
 * aggregate's event); an optional `stepRef` field names the step the file belongs to. Returns the new id.
 *
 * @example const id = await receiveAttachment(deps, ctx, `manual/${projectId}/${caseId}`, (attachment) => writes.run(…));
 */
export async function receiveAttachment(
  deps: Pick<RouteDeps, 'blobs' | 'attachmentMaxBytes'>,
  ctx: ProjectContext,
  keyPrefix: string,
  record: (attachment: AttachmentRecord) => Promise<unknown>,
): Promise<string> {
  const id = newId();
  const key = `${keyPrefix}/${id}`;
  const { fields, file } = await receiveUpload(ctx.req, {
    blobs: deps.blobs,
    key,
    maxBytes: deps.attachmentMaxBytes,
    describe: (_fields, part) => ({
      contentType: part.mimeType || 'application/octet-stream',
      filename: part.filename || 'attachment',
    }),
  });
  const stepRef = fields.stepRef?.trim() || null;
  try {
    if (stepRef !== null && stepRef.length > 100) {
      throw new ValidationError('stepRef: must be at most 100 characters');
    }
    await record({
      id,
      fileName: safeFileName(file.filename),
      originalFileName: file.filename.slice(0, 255),
      fileSize: file.size,
      mimeType: file.contentType,
      blobKey: key,
      stepRef,
    });
  } catch (error) {
    if (error instanceof AppError) await deps.blobs.delete(key);
    throw error;
  }
  return id;
}
