import {
  ManualCaseAttachmentAdded,
  ManualCaseAttachmentRemoved,
  ManualCaseCreated,
  ManualCaseRevised,
  type CaseContent,
} from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { caseHistory, caseHistoryProjection } from './caseHistory';
import { DEFAULT_CONTENT } from './decide';

const at = '2026-03-01T10:00:00.000Z';
const by = 'user-1';
const streamId = 'mt-case-c1';

describe.each(testDatabases())('the case history on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'caseHistory', caseHistoryProjection);

  it('when a case is created, changed, commented, given an attachment and has it removed, then its history lists each, newest first, at its revision', async () => {
    const revised = (set: Partial<CaseContent>, previous: Partial<CaseContent>, comment?: string) => ({
      ...ManualCaseRevised.of({
        caseId: 'c1',
        revision: 2,
        set,
        previous,
        comments: comment === undefined ? [] : [{ id: 'k1', text: comment }],
        issuesLinked: [],
        by,
        at,
      }),
      streamId,
    });
    const attachment = {
      id: 'a1',
      fileName: 'a.png',
      originalFileName: 'shot.png',
      fileSize: 1,
      mimeType: 'image/png',
      blobKey: 'k',
      stepRef: null,
    };
    await slice
      .spec()
      .given([
        {
          ...ManualCaseCreated.of({
            caseId: 'c1',
            projectId: 'project-1',
            number: 1,
            content: { ...DEFAULT_CONTENT, title: 'Log in' },
            comments: [],
            issues: ['JIRA-1'],
            by,
            at,
          }),
          streamId,
        },
      ])
      .when([
        revised({ title: 'Sign in' }, { title: 'Log in' }),
        revised({}, {}, 'why'),
        { ...ManualCaseAttachmentAdded.of({ caseId: 'c1', attachment, by, at }), streamId },
        { ...ManualCaseAttachmentRemoved.of({ caseId: 'c1', attachment, by, at }), streamId },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        const history = await caseHistory(read, 'c1', 1, 10);
        expect(history.total).toBe(5);
        expect(history.items.map((h) => [h.kind, h.revision, h.changes, h.comments, h.issuesLinked])).toEqual(
          [
            ['attachment-removed', 2, { attachments: { from: 'shot.png', to: null } }, [], []],
            ['attachment-added', 2, { attachments: { from: null, to: 'shot.png' } }, [], []],
            ['commented', 2, {}, ['why'], []],
            ['updated', 2, { title: { from: 'Log in', to: 'Sign in' } }, [], []],
            ['created', 1, {}, [], ['JIRA-1']],
          ],
        );
        expect((await caseHistory(read, 'c1', 2, 4)).items.map((h) => h.kind)).toEqual(['created']);
      });
  });
});
