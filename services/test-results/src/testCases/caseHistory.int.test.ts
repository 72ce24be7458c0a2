import { testCaseIdOf } from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { FILE, PROJECT, resultOf } from '../runs/specEvents';
import { sliceUnderTest } from '../testing';
import { caseHistoryProjection, findTestCase } from './caseHistory';

const caseId = testCaseIdOf({ file: FILE, titlePath: ['Cart', 'pays'] });

describe.each(testDatabases())('the case history on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'caseHistory', caseHistoryProjection);

  it('when a test runs on two platforms with tags, then it is one test case with both, seen from its first to its last attempt', async () => {
    await slice
      .spec()
      .given([resultOf('pays', 0, 'passed', { tags: ['@smoke'] })])
      .when([resultOf('pays', 1, 'failed', { project: 'firefox', tags: ['@cart'] })])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        expect(await findTestCase(slice.read(schema), PROJECT, caseId)).toMatchObject({
          id: caseId,
          title: 'pays',
          titlePath: ['Cart', 'pays'],
          platforms: ['chromium', 'firefox'],
          tags: ['@cart', '@smoke'],
          firstSeenAt: '2026-03-01T10:00:00.000Z',
          lastSeenAt: '2026-03-01T10:00:01.000Z',
        });
        expect(await findTestCase(slice.read(schema), 'project-2', caseId)).toBeNull();
      });
  });
});
