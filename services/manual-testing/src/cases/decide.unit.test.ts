import {
  ManualCaseAttachmentAdded,
  ManualCaseAttachmentRemoved,
  ManualCaseCreated,
  ManualCaseRevised,
} from '@verdict/contracts';
import { given } from '@verdict/platform/testing';
import { caseDecider, contentAfter, DEFAULT_CONTENT, stepsOf, type CaseRequest } from './decide';

const now = new Date('2026-03-01T10:00:00.000Z');
const at = now.toISOString();
const created = ManualCaseCreated.of({
  caseId: 'c1',
  projectId: 'p1',
  number: 12,
  content: { ...DEFAULT_CONTENT, title: 'Log in', tags: ['smoke'] },
  comments: [],
  issues: ['JIRA-1'],
  by: 'u1',
  at,
});
const revise = (request: CaseRequest, commentIds: string[] = []) => ({
  type: 'reviseCase' as const,
  request,
  commentIds,
  by: 'u2',
  now,
});

describe('the case decider', () => {
  it('when a case is created, then it records the content built from the request over the defaults', () => {
    given(caseDecider, [])
      .when({
        type: 'createCase',
        caseId: 'c1',
        projectId: 'p1',
        number: 12,
        request: { name: 'Log in', tags: 'smoke' },
        commentIds: [],
        by: 'u1',
        now,
      })
      .then([ManualCaseCreated.of({ ...created.data, issues: [] })]);
  });

  it('when a case is revised, then only the changed fields are recorded, with their values before', () => {
    given(caseDecider, [created])
      .when(revise({ title: 'Log in', priority: 'high', tags: ['smoke'] }))
      .then([
        ManualCaseRevised.of({
          caseId: 'c1',
          revision: 2,
          set: { priority: 'high' },
          previous: { priority: 'not_set' },
          comments: [],
          issuesLinked: [],
          by: 'u2',
          at,
        }),
      ]);
  });

  it('when only a comment and an already linked issue come in, then the revision stays and the issue is not linked twice', () => {
    given(caseDecider, [created])
      .when(revise({ comments: ['looks good'], issues: ['JIRA-1'] }, ['k1']))
      .then([
        ManualCaseRevised.of({
          caseId: 'c1',
          revision: 1,
          set: {},
          previous: {},
          comments: [{ id: 'k1', text: 'looks good' }],
          issuesLinked: [],
          by: 'u2',
          at,
        }),
      ]);
  });

  it('when a revision changes nothing, then no event is recorded', () => {
    given(caseDecider, [created])
      .when(revise({ title: 'Log in' }))
      .then([]);
  });

  it('when a missing case is revised, then it is refused with NOT_FOUND', () => {
    given(caseDecider, [])
      .when(revise({ title: 'x' }))
      .thenRefuses({ code: 'NOT_FOUND' });
  });

  it('when a case is created twice, then the second is refused with CONFLICT', () => {
    given(caseDecider, [created])
      .when({
        type: 'createCase',
        caseId: 'c1',
        projectId: 'p1',
        number: 13,
        request: { title: 'x' },
        commentIds: [],
        by: 'u1',
        now,
      })
      .thenRefuses({ code: 'CONFLICT' });
  });
});

describe('case content', () => {
  it('when flags are given, then each maps to its automation boolean and the absent ones are false', () => {
    const content = contentAfter({ ...DEFAULT_CONTENT, isMuted: true }, { flags: ['Is flaky'] });
    expect([content.toBeAutomated, content.isFlaky, content.isMuted]).toEqual([false, true, false]);
  });

  it('when automationStatus becomes to_be_automated, then the To be Automated flag follows, and back', () => {
    const toBe = contentAfter(DEFAULT_CONTENT, { automationStatus: 'to_be_automated' });
    expect([toBe.automationStatus, toBe.toBeAutomated]).toEqual(['to_be_automated', true]);
    const automated = contentAfter(toBe, { automationStatus: 'automated' });
    expect([automated.automationStatus, automated.toBeAutomated]).toEqual(['automated', false]);
  });

  it('when the To be Automated flag is set or cleared, then automationStatus follows (cleared: back to manual)', () => {
    const flagged = contentAfter(DEFAULT_CONTENT, { flags: ['To be Automated'] });
    expect([flagged.automationStatus, flagged.toBeAutomated]).toEqual(['to_be_automated', true]);
    const cleared = contentAfter(flagged, { flags: ['Muted'] });
    expect([cleared.automationStatus, cleared.toBeAutomated]).toEqual(['manual', false]);
    const automated = contentAfter(
      { ...DEFAULT_CONTENT, automationStatus: 'automated' },
      { flags: ['Muted'] },
    );
    expect(automated.automationStatus).toBe('automated');
  });

  it('when automationStatus and flags are both sent, then automationStatus decides and the flag follows it', () => {
    const automated = contentAfter(DEFAULT_CONTENT, {
      automationStatus: 'automated',
      flags: ['To be Automated'],
    });
    expect([automated.automationStatus, automated.toBeAutomated]).toEqual(['automated', false]);
    const toBe = contentAfter(DEFAULT_CONTENT, { automationStatus: 'to_be_automated', flags: ['Muted'] });
    expect([toBe.automationStatus, toBe.toBeAutomated, toBe.isMuted]).toEqual([
      'to_be_automated',
      true,
      true,
    ]);
  });

  it('when Classic steps are given as text and objects, then they are numbered by position with empty defaults', () => {
    expect(
      stepsOf(['Open', { action: 'Click', expectedResult: 'Done', subSteps: ['Wait'] }], 'Classic'),
    ).toEqual({
      classic: [
        { step: 1, action: 'Open', data: '', expectedResult: '', subSteps: [] },
        {
          step: 2,
          action: 'Click',
          data: '',
          expectedResult: 'Done',
          subSteps: [{ step: 1, action: 'Wait', data: '', expectedResult: '', subSteps: [] }],
        },
      ],
      gherkin: [],
    });
  });

  it('when a Gherkin step carries data or an expected result, then it is refused naming the step', () => {
    expect(() => stepsOf([{ text: 'Given', data: 'x' }], 'Gherkin')).toThrow(/steps\[0\]/);
  });

  it('when the step format changes without steps, then the existing steps are kept', () => {
    const content = contentAfter(
      { ...DEFAULT_CONTENT, steps: stepsOf(['Open'], 'Classic') },
      { stepFormat: 'Gherkin' },
    );
    expect(content.stepFormat).toBe('Gherkin');
    expect(content.steps.classic).toHaveLength(1);
  });

  describe('attachments', () => {
    const attachment = {
      id: 'a1',
      fileName: 'login.png',
      originalFileName: 'login.png',
      fileSize: 10,
      mimeType: 'image/png',
      blobKey: 'manual/p1/c1/a1',
      stepRef: null,
    };
    const added = ManualCaseAttachmentAdded.of({ caseId: 'c1', attachment, by: 'u2', at });
    const removed = ManualCaseAttachmentRemoved.of({ caseId: 'c1', attachment, by: 'u2', at });
    const remove = (attachmentId: string) =>
      ({ type: 'removeAttachment', attachmentId, by: 'u2', now }) as const;

    it('when a file is removed, then the removal carries the attachment as it was added', () => {
      given(caseDecider, [created, added]).when(remove('a1')).then([removed]);
    });

    it('when a removed file is removed again, then nothing more is decided', () => {
      given(caseDecider, [created, added, removed]).when(remove('a1')).then([]);
    });

    it('when the case never had the file, then NOT_FOUND', () => {
      given(caseDecider, [created, added]).when(remove('a9')).thenRefuses({ code: 'NOT_FOUND' });
      given(caseDecider, []).when(remove('a1')).thenRefuses({ code: 'NOT_FOUND' });
    });
  });
});
