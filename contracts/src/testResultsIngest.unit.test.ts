import { z } from 'zod';
import { ResultItem } from './testResults';
import { MAX_SHARDS, RunCreated, Shard, ShardInput } from './testResultsEvents';
import { FinishRunRequest, StartRunRequest } from './testResultsIngest';

const item = {
  file: 'tests/cart.spec.ts',
  titlePath: ['Cart', 'adds'],
  attempt: 0,
  status: 'passed',
  durationMs: 12,
  startedAt: '2026-03-01T10:00:00.000Z',
};

const issuesOf = (result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}) => (result.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);

describe('how each attempt ran: the worker of a result', () => {
  it('when a result names its worker, then index, parallelIndex and ordinal are kept and unknown fields dropped', () => {
    const parsed = ResultItem.parse({
      ...item,
      worker: { index: 3, parallelIndex: 1, ordinal: 7, pid: 4242 },
    });
    expect(parsed.worker).toEqual({ index: 3, parallelIndex: 1, ordinal: 7 });
  });

  it('when a result sends no worker, or only some of its fields, then it is accepted as an old client sends it', () => {
    expect(ResultItem.parse(item).worker).toBeUndefined();
    expect(ResultItem.parse({ ...item, worker: { index: 0 } }).worker).toEqual({ index: 0 });
  });

  it('when a worker field is negative or not an integer, then the error names it', () => {
    const result = ResultItem.safeParse({ ...item, worker: { index: -1, parallelIndex: 0.5, ordinal: 'x' } });
    expect(result.success).toBe(false);
    expect(issuesOf(result).map((issue) => issue.split(':')[0])).toEqual([
      'worker.index',
      'worker.parallelIndex',
      'worker.ordinal',
    ]);
  });
});

describe('the numbers of a result fit the columns they are kept in', () => {
  it('when a line number is larger than an integer column holds (issue 33: a 500, then retries forever), then the result is refused naming it', () => {
    const location = { file: 'tests/cart.spec.ts', line: 1_125_899_906_842_624 };
    const result = ResultItem.safeParse({
      ...item,
      status: 'failed',
      location,
      error: { message: 'boom', location: { ...location, line: 3, column: 2 ** 31 } },
    });
    expect(issuesOf(result).map((issue) => issue.split(':')[0])).toEqual([
      'error.location.column',
      'location.line',
    ]);
  });

  it('when a line number is the largest an integer column holds, then it is accepted', () => {
    const location = { file: 'tests/cart.spec.ts', line: 2_147_483_647, column: 2_147_483_647 };
    expect(ResultItem.parse({ ...item, location }).location).toEqual(location);
  });
});

describe('how each attempt ran: the host and settings of a run', () => {
  const host = {
    nameHash: '0123456789abcdef',
    os: 'linux 6.8.0',
    cpus: 8,
    memoryMb: 32_000,
    loadAverage: [1.5, 0.75, 0],
  };
  const settings = { workers: 4, fullyParallel: false, shard: { current: 2, total: 3 }, seed: '1234' };

  it('when a start sends its host and settings, then both are kept and unknown fields dropped', () => {
    const parsed = StartRunRequest.parse({
      ciRunId: 'ci-1',
      host: { ...host, hostname: 'runner-7' },
      settings: { ...settings, retries: 2 },
    });
    expect(parsed.host).toEqual(host);
    expect(parsed.settings).toEqual(settings);
  });

  it('when a start sends neither, then it parses as before', () => {
    const parsed = StartRunRequest.parse({ branch: 'main' });
    expect(parsed.host).toBeUndefined();
    expect(parsed.settings).toBeUndefined();
  });

  it('when the host sends its name instead of a hash, or bad numbers, then each field is refused by name', () => {
    const result = StartRunRequest.safeParse({
      host: { nameHash: 'runner-7', cpus: 0, memoryMb: -1, loadAverage: [1, 2] },
      settings: { workers: 0, fullyParallel: 'yes', shard: { current: 3, total: 2 } },
    });
    expect(
      issuesOf(result)
        .map((issue) => issue.split(':')[0])
        .sort(),
    ).toEqual(
      [
        'host.nameHash',
        'host.cpus',
        'host.memoryMb',
        'host.loadAverage',
        'settings.workers',
        'settings.fullyParallel',
        'settings.shard.current',
      ].sort(),
    );
    expect(issuesOf(result)).toContain(
      'host.nameHash: must be 16 lowercase hex digits (the start of a sha256)',
    );
  });

  it('when run.created was recorded before host and settings existed, then it still reads', () => {
    const old = {
      runId: 'run-1',
      projectId: 'project-1',
      counter: 1,
      ciRunId: null,
      title: null,
      branch: null,
      environment: null,
      commit: null,
      ci: null,
      framework: null,
      shardTotal: null,
      startedAt: '2026-03-01T10:00:00.000Z',
      tags: [],
    };
    const parsed = RunCreated.schema.parse({ type: 'run.created', version: 1, data: old });
    expect(parsed.data).toEqual(old);
  });
});

describe('the shards of a run', () => {
  const start = (shard: unknown, settings?: unknown) =>
    StartRunRequest.safeParse({
      ciRunId: 'ci-1',
      shard,
      ...(settings ? { settings: { shard: settings } } : {}),
    });

  it('when a shard is within its total, then the start is accepted', () => {
    expect(start({ current: 1000, total: 1000 }).success).toBe(true);
  });

  it('when a shard is past its total, then the start is refused naming shard.current', () => {
    expect(issuesOf(start({ current: 3, total: 2 }))).toEqual(['shard.current: must not be more than total']);
  });

  it('when a shard is past the most shards a run has, in the start, its settings or the finish, then it is refused naming the field, as the document says', () => {
    expect(issuesOf(start({ current: 1001, total: 1000 })).map((issue) => issue.split(':')[0])).toEqual([
      'shard.current',
    ]);
    expect(
      issuesOf(start(undefined, { current: 5000, total: 1000 })).map((issue) => issue.split(':')[0]),
    ).toEqual(['settings.shard.current']);
    expect(
      issuesOf(FinishRunRequest.safeParse({ shard: { current: 2_000_000, total: 1000 } })).map(
        (issue) => issue.split(':')[0],
      ),
    ).toEqual(['shard.current']);
  });

  it('when the schemas are described, then a request shard states 1,000 as the bound of current, and the event keeps the contract it was registered with', () => {
    const currentOf = (schema: z.ZodType) =>
      (z.toJSONSchema(schema) as unknown as { properties: { current: { maximum?: number } } }).properties
        .current;
    expect(currentOf(ShardInput).maximum).toBe(MAX_SHARDS);
    // The registered contract: any safe integer.
    expect(currentOf(Shard).maximum).toBe(Number.MAX_SAFE_INTEGER);
  });
});
