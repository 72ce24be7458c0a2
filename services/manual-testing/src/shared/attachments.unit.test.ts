import type { BlobStore, Logger } from '@verdict/platform';
import { removeAttachment, type KeptAttachment } from './attachments';

const kept: KeptAttachment = {
  attachment: {
    id: 'a1',
    fileName: 'login.png',
    originalFileName: 'login.png',
    fileSize: 3,
    mimeType: 'image/png',
    blobKey: 'manual/p1/c1/a1',
    stepRef: null,
  },
  removed: true,
};

/** A blob store whose delete records the key and fails when told to; a logger that records warnings. */
function dependencies(failing: boolean) {
  const deleted: string[] = [];
  const warnings: unknown[] = [];
  const blobs = {
    delete: async (key: string) => {
      deleted.push(key);
      if (failing) throw new Error('disk gone');
    },
  } as unknown as BlobStore;
  const logger = { warn: (fields: unknown) => warnings.push(fields) } as unknown as Logger;
  return { deps: { blobs, logger }, deleted, warnings };
}

describe('removing an attachment', () => {
  it('when the removal is recorded, then the blob is deleted after it and the answer is {_id, deleted}', async () => {
    const { deps, deleted } = dependencies(false);
    const order: string[] = [];
    const answer = await removeAttachment(deps, 'a1', async () => {
      order.push(`recorded with ${deleted.length} deleted`);
      return [kept];
    });
    expect([answer, order, deleted]).toEqual([
      { _id: 'a1', deleted: true },
      ['recorded with 0 deleted'],
      ['manual/p1/c1/a1'],
    ]);
  });

  it('when the blob store fails, then the removal still answers and the failure is logged', async () => {
    const { deps, warnings } = dependencies(true);
    await expect(removeAttachment(deps, 'a1', async () => [kept])).resolves.toEqual({
      _id: 'a1',
      deleted: true,
    });
    expect(warnings).toEqual([expect.objectContaining({ attachmentId: 'a1' })]);
  });

  it('when the record is refused, then nothing is deleted and the refusal is answered', async () => {
    const { deps, deleted } = dependencies(false);
    const refusal = new Error('Attachment not found on this case');
    await expect(
      removeAttachment(deps, 'a1', async () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(deleted).toEqual([]);
  });
});
