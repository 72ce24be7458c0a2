import {
  ManualRunCaseAttachmentAdded,
  ManualRunCaseAttachmentRemoved,
  ManualRunCaseUpdated,
  ManualRunCreated,
} from '@verdict/contracts';
import { given } from '@verdict/platform/testing';
import { findRunCase, runDecider, type UpdateRunCase } from './run';

const now = new Date('2026-03-01T10:00:00.000Z');
const at = now.toISOString();
const created = ManualRunCreated.of({
  runId: 'r1',
  projectId: 'p1',
  number: 3,
  name: 'Regression',
  description: '',
  releaseId: null,
  assigneeUserId: null,
  cases: [
    { refId: 'rc1', caseId: 'c1', number: 1, title: 'A', revision: 1 },
    { refId: 'rc2', caseId: 'c2', number: 12, title: 'B', revision: 4 },
  ],
  by: 'u1',
  at,
});
const update = (
  runCaseRef: string,
  request: UpdateRunCase['request'],
  assigneeUserId?: string | null,
): UpdateRunCase => ({
  type: 'updateRunCase',
  runCaseRef,
  request,
  assigneeUserId,
  by: 'u2',
  now,
});

describe('the run decider', () => {
  it('when a quick verdict comes in, then the run case update records it with its mode, actor and time', () => {
    given(runDecider, [created])
      .when(update('TC-12', { status: 'failed', elapsed: 30 }))
      .then([
        ManualRunCaseUpdated.of({
          runId: 'r1',
          refId: 'rc2',
          mode: 'quick',
          result: 'failed',
          elapsed: 30,
          by: 'u2',
          at,
        }),
      ]);
  });

  it('when an assignee is cleared, then the update records a null assignee', () => {
    given(runDecider, [created])
      .when(update('rc1', { assigneeUserId: null }, null))
      .then([
        ManualRunCaseUpdated.of({
          runId: 'r1',
          refId: 'rc1',
          mode: 'quick',
          assigneeUserId: null,
          by: 'u2',
          at,
        }),
      ]);
  });

  it('when the two modes are mixed, then it is refused with VALIDATION_ERROR', () => {
    given(runDecider, [created])
      .when(update('rc1', { result: 'passed', comment: 'x' }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /cannot be mixed/ });
  });

  it('when result and status disagree, then it is refused', () => {
    given(runDecider, [created])
      .when(update('rc1', { result: 'passed', status: 'failed' }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /status/ });
  });

  it('when the run case is not in the run, then NOT_FOUND', () => {
    given(runDecider, [created])
      .when(update('TC-2', { result: 'passed' }))
      .thenRefuses({ code: 'NOT_FOUND' });
  });

  it('when a result is corrected, then the correction is one more event and the state holds the latest', () => {
    const first = ManualRunCaseUpdated.of({
      runId: 'r1',
      refId: 'rc1',
      mode: 'quick',
      result: 'failed',
      by: 'u2',
      at,
    });
    const state = [created, first].reduce(runDecider.evolve, runDecider.initialState());
    const next = runDecider.decide(update('rc1', { result: 'passed' }), state);
    expect(next).toHaveLength(1);
    const after = next.reduce(runDecider.evolve, state);
    expect(after.status === 'exists' && findRunCase(after.cases, 'rc1')?.result).toBe('passed');
  });

  it('when a run case is named by reference, case key or case id, then the same one is found', () => {
    const state = runDecider.evolve(runDecider.initialState(), created);
    if (state.status !== 'exists') throw new Error('no run');
    expect([
      findRunCase(state.cases, 'rc2'),
      findRunCase(state.cases, 'tc-12'),
      findRunCase(state.cases, 'c2'),
    ]).toEqual([state.cases[1], state.cases[1], state.cases[1]]);
  });

  describe('evidence', () => {
    const attachment = {
      id: 'a1',
      fileName: 'login.png',
      originalFileName: 'login.png',
      fileSize: 10,
      mimeType: 'image/png',
      blobKey: 'manual/p1/runs/r1/a1',
      stepRef: '2',
    };
    const added = ManualRunCaseAttachmentAdded.of({ runId: 'r1', refId: 'rc2', attachment, by: 'u2', at });
    const removed = ManualRunCaseAttachmentRemoved.of({
      runId: 'r1',
      refId: 'rc2',
      attachment,
      by: 'u2',
      at,
    });
    const attach = { type: 'attachEvidence', runCaseRef: 'TC-12', attachment, by: 'u2', now } as const;
    const remove = (attachmentId: string, runCaseRef = 'rc2') =>
      ({ type: 'removeEvidence', runCaseRef, attachmentId, by: 'u2', now }) as const;

    it('when evidence is attached to a run case named by its case key, then the event names the run case', () => {
      given(runDecider, [created]).when(attach).then([added]);
    });

    it('when evidence is removed, then the removal carries the attachment as it was added', () => {
      given(runDecider, [created, added]).when(remove('a1')).then([removed]);
    });

    it('when removed evidence is removed again, then nothing more is decided', () => {
      given(runDecider, [created, added, removed]).when(remove('a1')).then([]);
    });

    it('when the run case never had the attachment, then NOT_FOUND (another run case’s neither)', () => {
      given(runDecider, [created, added]).when(remove('a9')).thenRefuses({ code: 'NOT_FOUND' });
      given(runDecider, [created, added]).when(remove('a1', 'rc1')).thenRefuses({ code: 'NOT_FOUND' });
    });

    it('when evidence goes to a case the run does not hold, then NOT_FOUND', () => {
      given(runDecider, [created])
        .when({ ...attach, runCaseRef: 'TC-2' })
        .thenRefuses({ code: 'NOT_FOUND', message: /Run case/ });
    });
  });
});
