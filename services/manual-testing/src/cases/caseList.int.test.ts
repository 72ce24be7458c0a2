import {
  ManualCaseAttachmentAdded,
  ManualCaseAttachmentRemoved,
  ManualCaseCreated,
  ManualCaseRevised,
  ManualCasesQuery,
  type CaseContent,
} from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { caseDetail } from './caseDetail';
import { caseListProjection, listCases } from './caseList';
import { DEFAULT_CONTENT } from './decide';

const at = '2026-03-01T10:00:00.000Z';
const by = 'user-1';

const created = (caseId: string, number: number, content: Partial<CaseContent>) => ({
  ...ManualCaseCreated.of({
    caseId,
    projectId: 'project-1',
    number,
    content: { ...DEFAULT_CONTENT, ...content },
    comments: [],
    issues: [],
    by,
    at,
  }),
  streamId: `mt-case-${caseId}`,
});

describe.each(testDatabases())('the case list on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'caseList', caseListProjection);
  const list = (schema: string, query: Record<string, string>) =>
    listCases(slice.read(schema), 'project-1', ManualCasesQuery.parse(query));

  it('when cases are created and revised, then the list filters, sorts, searches and counts them as they are now', async () => {
    await slice
      .spec()
      .given([
        created('c1', 1, { title: 'Log in', priority: 'high', tags: ['smoke'] }),
        created('c2', 2, { title: 'Checkout', priority: 'low' }),
      ])
      .when([
        {
          ...ManualCaseRevised.of({
            caseId: 'c2',
            revision: 2,
            set: { title: 'Add to cart', priority: 'high' },
            previous: { title: 'Checkout', priority: 'low' },
            comments: [],
            issuesLinked: [],
            by,
            at,
          }),
          streamId: 'mt-case-c2',
        },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const high = await list(schema, { priority: 'high', sortBy: 'title' });
        expect(high.total).toBe(2);
        expect(high.items.map((c) => [c.caseId, c.title, c.revision])).toEqual([
          ['TC-2', 'Add to cart', 2],
          ['TC-1', 'Log in', 1],
        ]);
        expect((await list(schema, { search: 'cart' })).items.map((c) => c.caseId)).toEqual(['TC-2']);
        expect((await list(schema, { tags: 'smoke' })).total).toBe(1);
        expect((await list(schema, { priority: 'low' })).total).toBe(0);
      });
  });

  it('when a case gets comments, issues and an attachment, then its detail shows each once', async () => {
    const attachment = ManualCaseAttachmentAdded.of({
      caseId: 'c1',
      attachment: {
        id: 'a1',
        fileName: 'shot.png',
        originalFileName: 'shot.png',
        fileSize: 3,
        mimeType: 'image/png',
        blobKey: 'k/a1',
        stepRef: null,
      },
      by,
      at,
    });
    await slice
      .spec()
      .given([created('c1', 1, { title: 'Log in' })])
      .when([
        {
          ...ManualCaseRevised.of({
            caseId: 'c1',
            revision: 1,
            set: {},
            previous: {},
            comments: [{ id: 'k1', text: 'flaky on Safari' }],
            issuesLinked: ['JIRA-1'],
            by,
            at,
          }),
          streamId: 'mt-case-c1',
        },
        { ...attachment, streamId: 'mt-case-c1' },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const detail = await caseDetail(slice.read(schema), 'project-1', 'c1');
        expect(detail?.comments.map((c) => c.text)).toEqual(['flaky on Safari']);
        expect(detail?.issues.map((i) => i.key)).toEqual(['JIRA-1']);
        expect(detail?.attachments.map((a) => [a._id, a.blobUrl])).toEqual([['a1', 'blob:k/a1']]);
        expect(await caseDetail(slice.read(schema), 'other', 'c1')).toBeNull();
      });
  });

  it('when attachments are added and one removed, then the case lists what is left, in order, once', async () => {
    const record = (id: string) => ({
      id,
      fileName: `${id}.png`,
      originalFileName: `${id}.png`,
      fileSize: 3,
      mimeType: 'image/png',
      blobKey: `k/${id}`,
      stepRef: null,
    });
    const event = { caseId: 'c1', by, at };
    const streamId = 'mt-case-c1';
    await slice
      .spec()
      .given([created('c1', 1, { title: 'Log in' })])
      .when([
        { ...ManualCaseAttachmentAdded.of({ ...event, attachment: record('a1') }), streamId },
        { ...ManualCaseAttachmentAdded.of({ ...event, attachment: record('a2') }), streamId },
        { ...ManualCaseAttachmentAdded.of({ ...event, attachment: record('a3') }), streamId },
        { ...ManualCaseAttachmentRemoved.of({ ...event, attachment: record('a2') }), streamId },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const detail = await caseDetail(slice.read(schema), 'project-1', 'c1');
        expect(detail?.attachments.map((a) => a._id)).toEqual(['a1', 'a3']);
      });
  });
});
