import {
  RunArtifactAdded,
  RunCoverageAdded,
  RunCreated,
  RunFinished,
  RunShardFinished,
  RunShardStarted,
  TestResultRecorded,
  type CoverageReport,
  type RunStatus,
  type Shard,
} from '@verdict/contracts';
import {
  CLOCK_SKEW_MS,
  combinedStatus,
  FailuresWanted,
  runDecider,
  type CreateRun,
  type FinishRun,
} from './decide';
import { realisticResult } from './fixtures';
import { given } from '@verdict/platform/testing';
import { resultEventId } from './results';
import { derivedId } from '@verdict/platform';
import { evolve, initialState, summaryOf, type RunEvent } from './run';

const now = new Date('2026-03-01T10:00:00.000Z');
const later = new Date('2026-03-01T10:30:00.000Z');
const runId = 'run-1';
const projectId = 'project-1';
const shard = (current: number, total = 3): Shard => ({ current, total });

function createRun(overrides: Partial<CreateRun> = {}): CreateRun {
  return {
    type: 'createRun',
    runId,
    projectId,
    counter: 7,
    ciRunId: 'gh-42',
    title: 'nightly',
    branch: 'main',
    environment: 'staging',
    commit: { sha: 'abc123', message: 'Fix cart', author: 'Ada' },
    ci: { provider: 'github', buildId: '42', url: 'https://ci.example.com/42' },
    framework: { name: 'playwright', version: '1.50.0' },
    shard: null,
    startedAt: null,
    tags: ['nightly'],
    baseBranch: null,
    host: null,
    settings: null,
    now,
    ...overrides,
  };
}

const created = (shardTotal: number | null = null) =>
  RunCreated.of({
    runId,
    projectId,
    counter: 7,
    ciRunId: 'gh-42',
    title: 'nightly',
    branch: 'main',
    environment: 'staging',
    commit: { sha: 'abc123', message: 'Fix cart', author: 'Ada' },
    ci: { provider: 'github', buildId: '42', url: 'https://ci.example.com/42' },
    framework: { name: 'playwright', version: '1.50.0' },
    shardTotal,
    startedAt: now.toISOString(),
    tags: ['nightly'],
  });
const shardStarted = (current: number, total = 3) =>
  RunShardStarted.of({ runId, shard: shard(current, total), startedAt: now.toISOString() });
const shardFinished = (
  current: number,
  status: RunStatus | null = 'passed',
  finishedAt = now.toISOString(),
) => RunShardFinished.of({ runId, shard: shard(current), finishedAt, status });
const finished = (status: RunStatus | null = 'passed') =>
  RunFinished.of({ runId, finishedAt: now.toISOString(), status });

function finish(overrides: Partial<FinishRun> = {}): FinishRun {
  return {
    type: 'finishRun',
    runId,
    projectId,
    shard: null,
    finishedAt: null,
    status: null,
    now: later,
    ...overrides,
  };
}

const coverage: CoverageReport = {
  lines: { total: 100, covered: 80 },
  statements: { total: 120, covered: 90 },
  functions: { total: 20, covered: 15 },
  branches: { total: 40, covered: 22 },
};
const artifact = {
  id: 'art-1',
  name: 'trace.zip',
  contentType: 'application/zip',
  size: 1024,
  blobKey: 'project-1/run-1/art-1',
  resultRef: null,
};

describe('run decider: starting', () => {
  it('when the first start has no shard, then run.created records the run with its number and no shards', () => {
    given(runDecider, []).when(createRun()).then([created()]);
  });

  it('when the first start names its shard, then run.created announces the shard total and the shard starts', () => {
    given(runDecider, [])
      .when(createRun({ shard: shard(2) }))
      .then([created(3), shardStarted(2)]);
  });

  it('when the runner says when the run started, then startedAt is its time, not now', () => {
    const startedAt = '2026-03-01T09:59:00.000Z';
    given(runDecider, [])
      .when(createRun({ startedAt }))
      .then([{ ...created(), data: { ...created().data, startedAt } }]);
    // Kept as the reads print it: in UTC, with milliseconds.
    given(runDecider, [])
      .when(createRun({ startedAt: '2026-03-01T11:59:00+02:00' }))
      .then([{ ...created(), data: { ...created().data, startedAt } }]);
  });

  it('when another shard starts the existing run, then it joins: only run.shard-started, never a second run.created', () => {
    given(runDecider, [created(3), shardStarted(1)])
      .when(createRun({ shard: shard(2), counter: 8, title: 'other title' }))
      .then([RunShardStarted.of({ runId, shard: shard(2), startedAt: now.toISOString() })]);
  });

  it('when a start is retried (the same shard, or no shard), then nothing is recorded', () => {
    given(runDecider, [created(3), shardStarted(1)])
      .when(createRun({ shard: shard(1) }))
      .then([]);
    given(runDecider, [created()]).when(createRun()).then([]);
    given(runDecider, [created(3), shardStarted(1)])
      .when({ type: 'startShard', runId, projectId, shard: null, now })
      .then([]);
  });

  it('when a run created without shards is joined by shards, then they start and it adopts their total', () => {
    const history = [created(), shardStarted(1, 2)];
    given(runDecider, [created()])
      .when(createRun({ shard: shard(1, 2) }))
      .then([shardStarted(1, 2)]);
    given(runDecider, history)
      .when(createRun({ shard: shard(2, 3) }))
      .thenRefuses({ code: 'CONFLICT', message: /^shard\.total: 3 does not match the 2 shards/ });
  });

  it('when a shard announces another total than the run has, then it is a CONFLICT naming shard.total', () => {
    given(runDecider, [created(3)])
      .when({ type: 'startShard', runId, projectId, shard: shard(1, 4), now })
      .thenRefuses({ code: 'CONFLICT', message: /shard\.total: 4 .* 3 shards/ });
  });

  it('when a start joins a finished run, then it is RUN_FINISHED, unless it is a retry of a shard that ran', () => {
    const history = [created(2), shardStarted(1, 2), shardStarted(2, 2)];
    const done = [...history, finished()];
    given(runDecider, done)
      .when(createRun({ shard: { current: 1, total: 2 } }))
      .then([]);
    given(runDecider, [created(), finished()])
      .when(createRun())
      .thenRefuses({ code: 'RUN_FINISHED', message: /another ciRunId/ });
    given(runDecider, [created(3), finished()])
      .when(createRun({ shard: shard(3) }))
      .thenRefuses({ code: 'RUN_FINISHED' });
  });

  it('when a shard starts a run that does not exist or belongs to another project, then it is NOT_FOUND', () => {
    given(runDecider, [])
      .when({ type: 'startShard', runId, projectId, shard: shard(1), now })
      .thenRefuses({ code: 'NOT_FOUND' });
    given(runDecider, [created(3)])
      .when({ type: 'startShard', runId, projectId: 'project-2', shard: shard(1), now })
      .thenRefuses({ code: 'NOT_FOUND', message: /Run run-1 not found/ });
  });
});

describe('run decider: base branch and verdicts', () => {
  const failures = {
    baseBranch: 'main',
    baseRunId: 'run-0',
    counts: { new: 1, failingOnBase: 0, knownFlaky: 0, quarantined: 0 },
    newFailures: [
      { testCaseId: 'tc', title: 'pays', file: 'cart.spec.ts', project: null, signatureId: null },
    ],
  };

  it('when the start names a base branch, then run.created records it', () => {
    given(runDecider, [])
      .when(createRun({ baseBranch: 'develop' }))
      .then([{ ...created(), data: { ...created().data, baseBranch: 'develop' } }]);
  });

  it('when the start sends its host and runner settings, then run.created records them as sent', () => {
    const host = { nameHash: '0123456789abcdef', os: 'linux 6.8.0', cpus: 4, memoryMb: 16_000 };
    const settings = { workers: 2, fullyParallel: true, shard: shard(1, 2), seed: '42' };
    given(runDecider, [])
      .when(createRun({ host, settings }))
      .then([{ ...created(), data: { ...created().data, host, settings } }]);
  });

  it('when the finish that ends the run asks for its failures, then the decision waits for them', () => {
    expect(() =>
      runDecider.decide(finish({ failures: 'ask' }), runDecider.evolve(runDecider.initialState(), created())),
    ).toThrow(FailuresWanted);
  });

  it('when the failures come with the finish, then run.finished carries them', () => {
    given(runDecider, [created()])
      .when(finish({ failures, now }))
      .then([{ ...finished(null), data: { ...finished(null).data, failures } }]);
  });

  it('when a shard that is not the last finishes, then its failures are not asked for', () => {
    given(runDecider, [created(3), shardStarted(1)])
      .when(finish({ shard: shard(1), failures: 'ask', now }))
      .then([shardFinished(1, null)]);
  });
});

describe('run decider: finishing', () => {
  it('when a run without shards finishes, then run.finished records the time and status given', () => {
    given(runDecider, [created()])
      .when(finish({ finishedAt: '2026-03-01T10:20:00.000Z', status: 'failed' }))
      .then([RunFinished.of({ runId, finishedAt: '2026-03-01T10:20:00.000Z', status: 'failed' })]);
  });

  it('when a finish reports a time more than 5 minutes before the run started, then it is a VALIDATION_ERROR naming finishedAt', () => {
    const before = new Date(now.getTime() - CLOCK_SKEW_MS - 1).toISOString();
    given(runDecider, [created()])
      .when(finish({ finishedAt: before }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /^finishedAt: .* is before the run started/ });
    given(runDecider, [created(2), shardStarted(1)])
      .when(finish({ shard: shard(1), finishedAt: before }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /^finishedAt:/ });
    // Within the skew of two clocks it is a run of no time, not a mistake: it ends when it started.
    const skewed = new Date(now.getTime() - CLOCK_SKEW_MS).toISOString();
    given(runDecider, [created()])
      .when(finish({ finishedAt: skewed }))
      .then([RunFinished.of({ runId, finishedAt: now.toISOString(), status: null })]);
  });

  it('when a run started in the future (a runner clock ahead) finishes without a time, then it ends at its start, not before', () => {
    const ahead = new Date(later.getTime() + 3_600_000).toISOString();
    given(runDecider, [{ ...created(), data: { ...created().data, startedAt: ahead } }])
      .when(finish())
      .then([RunFinished.of({ runId, finishedAt: ahead, status: null })]);
    given(runDecider, [{ ...created(1), data: { ...created(1).data, startedAt: ahead } }, shardStarted(1, 1)])
      .when(finish({ shard: shard(1, 1) }))
      .then([
        RunShardFinished.of({ runId, shard: shard(1, 1), finishedAt: ahead, status: null }),
        RunFinished.of({ runId, finishedAt: ahead, status: null }),
      ]);
  });

  it('when a finish says neither time nor status, then it is now and unknown', () => {
    given(runDecider, [created()])
      .when(finish())
      .then([RunFinished.of({ runId, finishedAt: later.toISOString(), status: null })]);
  });

  it('when a finished run is finished again, then nothing is recorded (a retried finish is idempotent)', () => {
    given(runDecider, [created(), finished()])
      .when(finish({ status: 'failed' }))
      .then([]);
    given(runDecider, [created(3), shardFinished(1), shardFinished(2), shardFinished(3), finished()])
      .when(finish({ shard: shard(2) }))
      .then([]);
  });

  it('when 3 shards finish, then the first two record shard-finished only and the third also finishes the run', () => {
    const started = [created(3), shardStarted(1), shardStarted(2), shardStarted(3)];
    given(runDecider, started)
      .when(finish({ shard: shard(2), status: 'passed' }))
      .then([
        RunShardFinished.of({ runId, shard: shard(2), finishedAt: later.toISOString(), status: 'passed' }),
      ]);
    given(runDecider, [...started, shardFinished(2)])
      .when(finish({ shard: shard(1), status: 'failed' }))
      .then([expect.objectContaining({ type: 'run.shard-finished' })]);
    given(runDecider, [...started, shardFinished(2), shardFinished(1, 'failed', '2026-03-01T10:40:00.000Z')])
      .when(finish({ shard: shard(3), status: 'passed', finishedAt: '2026-03-01T10:35:00.000Z' }))
      .then([
        RunShardFinished.of({
          runId,
          shard: shard(3),
          finishedAt: '2026-03-01T10:35:00.000Z',
          status: 'passed',
        }),
        RunFinished.of({ runId, finishedAt: '2026-03-01T10:40:00.000Z', status: 'failed' }),
      ]);
  });

  it('when a shard finishes twice, then the second finish records nothing and does not count', () => {
    given(runDecider, [created(3), shardFinished(1)])
      .when(finish({ shard: shard(1) }))
      .then([]);
  });

  it('when a sharded run is finished without naming the shard, then it is a VALIDATION_ERROR on shard', () => {
    given(runDecider, [created(3)])
      .when(finish())
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /^shard: is required: .* 3 shards/ });
  });

  it('when a finish names another shard total than the run has, then it is a CONFLICT', () => {
    given(runDecider, [created(3)])
      .when(finish({ shard: shard(1, 2) }))
      .thenRefuses({ code: 'CONFLICT', message: /shard\.total/ });
  });

  it('when a run that does not exist or belongs to another project is finished, then it is NOT_FOUND', () => {
    given(runDecider, []).when(finish()).thenRefuses({ code: 'NOT_FOUND' });
    given(runDecider, [created()])
      .when(finish({ projectId: 'project-2' }))
      .thenRefuses({ code: 'NOT_FOUND' });
  });

  it('when shards report statuses, then the run takes the worst, passed only when all passed, else unknown', () => {
    const ends = (...statuses: (RunStatus | null)[]) =>
      statuses.map((status) => ({ finishedAt: now.toISOString(), status }));
    expect(combinedStatus(ends('passed', 'passed'))).toBe('passed');
    expect(combinedStatus(ends('passed', 'interrupted', 'timedOut'))).toBe('timedOut');
    expect(combinedStatus(ends('timedOut', null, 'failed'))).toBe('failed');
    expect(combinedStatus(ends('passed', null))).toBeNull();
    expect(combinedStatus(ends(null))).toBeNull();
  });
});

describe('run decider: results, artifacts, coverage', () => {
  const items = [realisticResult(1), realisticResult(2)];

  it('when results are recorded on a running run, then each is one event whose id derives from its identity', () => {
    given(runDecider, [created()])
      .when({ type: 'recordResults', runId, projectId, items })
      .then(
        items.map((item) => ({
          ...TestResultRecorded.of({ runId, item }),
          eventId: resultEventId(runId, item),
        })),
      );
  });

  it('when results, an artifact or coverage come for a finished run, then each is RUN_FINISHED', () => {
    const done = [created(), finished()];
    given(runDecider, done)
      .when({ type: 'recordResults', runId, projectId, items })
      .thenRefuses({ code: 'RUN_FINISHED', message: /is finished/ });
    given(runDecider, done)
      .when({ type: 'recordArtifact', runId, projectId, artifact, now })
      .thenRefuses({ code: 'RUN_FINISHED' });
    given(runDecider, done)
      .when({ type: 'addCoverage', runId, projectId, coverage, now })
      .thenRefuses({ code: 'RUN_FINISHED' });
  });

  it('when results, an artifact or coverage come for an unknown run or another project, then NOT_FOUND', () => {
    given(runDecider, [])
      .when({ type: 'recordResults', runId, projectId, items })
      .thenRefuses({ code: 'NOT_FOUND' });
    given(runDecider, [created()])
      .when({ type: 'recordArtifact', runId, projectId: 'project-2', artifact, now })
      .thenRefuses({ code: 'NOT_FOUND' });
    given(runDecider, [created()])
      .when({ type: 'addCoverage', runId, projectId: 'project-2', coverage, now })
      .thenRefuses({ code: 'NOT_FOUND' });
  });

  it('when an artifact is recorded, then run.artifact-added carries its metadata under an id derived from the artifact id', () => {
    given(runDecider, [created()])
      .when({ type: 'recordArtifact', runId, projectId, artifact, now })
      .then([
        {
          ...RunArtifactAdded.of({ runId, artifact, addedAt: now.toISOString() }),
          eventId: derivedId(runId, 'artifact', 'art-1'),
        },
      ]);
  });

  it('when the same coverage is sent twice, then both decisions carry the same event id; other coverage another', () => {
    const decideCoverage = (report: CoverageReport, at: Date) =>
      runDecider.decide(
        { type: 'addCoverage', runId, projectId, coverage: report, now: at },
        evolve(initialState(), created()),
      );
    const [first] = decideCoverage(coverage, now);
    const [again] = decideCoverage(coverage, later);
    const [other] = decideCoverage({ ...coverage, lines: { total: 100, covered: 81 } }, now);
    expect(first).toEqual({
      ...RunCoverageAdded.of({ runId, coverage, addedAt: now.toISOString() }),
      eventId: expect.any(String),
    });
    expect(again?.eventId).toBe(first?.eventId);
    expect(other?.eventId).not.toBe(first?.eventId);
  });
});

describe('run state', () => {
  it('when a run is folded, then its summary says running, then finished with the finish time', () => {
    const running = [created(3), shardStarted(1)].reduce<ReturnType<typeof initialState>>(
      (state, event) => evolve(state, event),
      initialState(),
    );
    if (running.status === 'none') throw new Error('expected a run');
    expect(summaryOf(running)).toEqual({
      id: runId,
      counter: 7,
      status: 'running',
      projectId,
      ciRunId: 'gh-42',
      title: 'nightly',
      branch: 'main',
      environment: 'staging',
      commit: { sha: 'abc123', message: 'Fix cart', author: 'Ada' },
      startedAt: now.toISOString(),
      finishedAt: null,
    });
    const done = evolve(running, finished('failed'));
    if (done.status === 'none') throw new Error('expected a run');
    expect(summaryOf(done)).toMatchObject({ status: 'finished', finishedAt: now.toISOString() });
  });

  it('when a stored event is read back, then parse accepts lifecycle events and refuses others', () => {
    const parse = runDecider.parse;
    expect(parse?.(JSON.parse(JSON.stringify(created(3))) as RunEvent)).toEqual(created(3));
    const result = TestResultRecorded.of({ runId, item: realisticResult(1) });
    expect(() => parse?.(result)).toThrow(/does not belong/);
    expect(() => parse?.({ type: 'run.created', version: 1, data: { runId } })).toThrow();
  });

  it('when ids are derived, then the same parts give the same UUID and other parts another', () => {
    const id = derivedId('run-1', 'key');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedId('run-1', 'key')).toBe(id);
    expect(derivedId('run-2', 'key')).not.toBe(id);
    // Parts are kept apart: ('a-b', 'c') is not ('a', 'b-c').
    expect(derivedId('a-b', 'c')).not.toBe(derivedId('a', 'b-c'));
  });
});
