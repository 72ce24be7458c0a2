/**
 * Attachments (a case's files, a run case's evidence), the same on both aggregates. Receiving one: the
 * multipart `file` streams into the blob store, then the aggregate records it; the blob is only worth
 * keeping if the record was made, so a refused record deletes it again. Removing one: the aggregate
 * records the removal once (an attachment it keeps as removed is answered again, never decided twice),
 * then the blob is deleted.
 */
import type { AttachmentRecord } from '@verdict/contracts';
import {
  AppError,
  newId,
  NotFoundError,
  receiveUpload,
  ValidationError,
  type ProjectContext,
} from '@verdict/platform';
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

/** An attachment as an aggregate's state keeps it: a removed one stays, marked, so its removal is known. */
export interface KeptAttachment {
  attachment: AttachmentRecord;
  removed: boolean;
}

/** The kept attachments after one was added, or removed (`removed`). */
export function keptAfter(kept: KeptAttachment[], attachment: AttachmentRecord, removed: boolean) {
  return removed
    ? kept.map((k) => (k.attachment.id === attachment.id ? { ...k, removed } : k))
    : [...kept, { attachment, removed }];
}

/** The attachment `attachmentId` names, removed or not; undefined when it never was there. */
export function keptAttachment(kept: KeptAttachment[], attachmentId: string): KeptAttachment | undefined {
  return kept.find((k) => k.attachment.id === attachmentId);
}

/**
 * What removing `attachmentId` records: the attachment as it was added, or null when it is removed
 * already (nothing to decide); NOT_FOUND (`notFound`) when it never was there.
 */
export function attachmentToRemove(kept: KeptAttachment[], attachmentId: string, notFound: string) {
  const found = keptAttachment(kept, attachmentId);
  if (!found) throw new NotFoundError(notFound);
  return found.removed ? null : found.attachment;
}

/**
 * Records a removal with `record` (which runs the aggregate's command and answers its attachments after
 * it), then deletes the blob, again on a repeated removal, so a blob a failed delete left behind goes with
 * the retry. The removal is the record: a blob store failure is logged, not answered.
 *
 * @example return removeAttachment(deps, id, async () => attachmentsOf((await writes.run(…)).state));
 */
export async function removeAttachment(
  deps: Pick<RouteDeps, 'blobs' | 'logger'>,
  attachmentId: string,
  record: () => Promise<KeptAttachment[]>,
): Promise<{ _id: string; deleted: true }> {
  const removed = keptAttachment(await record(), attachmentId);
  if (removed) {
    await deps.blobs
      .delete(removed.attachment.blobKey)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, attachmentId }, 'the removed attachment stays in the blob store'),
      );
  }
  return { _id: attachmentId, deleted: true };
}
