import type { TestStep } from '@verdict/contracts';
import { z } from 'zod';
import { DebugBundleQueryDoc } from './params';
import {
  DebugBundle,
  DebugBundleEnvelope,
  TestBundle,
  type BundleArtifact,
  type BundleEnvironment,
  type BundleMeta,
  type RunBundle,
  type SuiteBundle,
} from './types';
import { applyView, capArtifacts, groupArtifacts } from './views';

const environment: BundleEnvironment = {
  branch: 'main',
  environment: null,
  commit: { sha: 'abc1234', message: null, author: null },
  ci: null,
  framework: { name: 'playwright', version: null },
};
const meta: BundleMeta = {
  projectId: 'p1',
  runId: 'r1',
  runTitle: null,
  startedAt: '2025-01-01T10:00:00Z',
  finishedAt: '2025-01-01T10:05:00Z',
  durationMs: 300_000,
  stats: { total: 3, passed: 1, failed: 1, flaky: 1, skipped: 0 },
  view: 'full',
  generatedAt: '2025-01-01T10:06:00Z',
};
const spec = {
  suiteId: 's1',
  file: 'a.spec.ts',
  title: 'a',
  status: 'failed' as const,
  stats: { total: 3, passed: 1, failed: 1, flaky: 1, skipped: 0 },
};
const window = { before: [], failed: null, after: [] };
const item = {
  caseId: 'c1',
  title: 't',
  titlePath: ['t'],
  file: 'a.spec.ts',
  line: 3,
  project: 'chromium',
  outcome: 'failed' as const,
  status: 'failed' as const,
  attempts: 2,
  durationMs: 100,
  error: { message: 'Boom', location: null },
  retryCommand: 'npx playwright test a.spec.ts:3',
};
const artifact = (n: number, contentType: string, name = `file-${n}`): BundleArtifact => ({
  name,
  contentType,
  artifactId: `a${n}`,
  url: `https://v/a${n}`,
});
const steps: TestStep[] = [{ title: 'step', durationMs: 1 }];

const runBundle: RunBundle = {
  scope: 'run',
  runId: 'r1',
  runStatus: 'failed',
  suites: [spec],
  items: [{ ...item, suiteId: 's1', alsoFailedIn: ['firefox'] }],
  meta,
  environment,
  links: { uiUrl: 'https://v/r1', retryCommand: 'npx playwright test a.spec.ts:3' },
};

const suiteBundle: SuiteBundle = {
  scope: 'suite',
  spec,
  suiteStatus: 'failed',
  items: [
    { ...item, failureWindow: window },
    { ...item, caseId: 'c2', failureWindow: window },
  ],
  meta,
  environment,
  links: { uiUrl: 'https://v/r1/s1', retryCommand: 'npx playwright test a.spec.ts' },
};

const testBundle: TestBundle = {
  scope: 'test',
  spec,
  test: {
    caseId: 'c1',
    title: 't',
    titlePath: ['t'],
    file: 'a.spec.ts',
    line: 3,
    project: 'chromium',
    status: 'failed',
    outcome: 'failed',
    durationMs: 100,
    startedAt: null,
    tags: [],
    annotations: [],
  },
  error: { message: 'Boom', stack: null, snippet: null, location: null },
  attemptHistory: [{ attempt: 0, status: 'failed', durationMs: 90, error: null }],
  traceLink: null,
  failureWindow: window,
  steps,
  stdout: ['out\n'],
  stderr: ['err\n'],
  artifacts: {
    screenshots: Array.from({ length: 7 }, (_, n) => artifact(n, 'image/png')),
    videos: [artifact(10, 'video/webm')],
    traces: Array.from({ length: 5 }, (_, n) => artifact(20 + n, 'application/zip', 'trace')),
    other: [],
  },
  meta: { ...meta, latestRun: false, attempt: 1, attempts: 2 },
  environment,
  links: { uiUrl: 'https://v/r1/c1', retryCommand: 'npx playwright test a.spec.ts:3', traceViewerUrl: null },
};

describe('applyView at test scope', () => {
  it('when view=full, then everything is kept and meta.view says full', () => {
    const full = applyView(testBundle, 'full');
    expect(full).toEqual(testBundle);
  });

  it('when view=brief, then steps are omitted (absent, not null) and output is kept', () => {
    const brief = applyView(testBundle, 'brief');
    expect('steps' in brief).toBe(false);
    expect(brief.stdout).toEqual(['out\n']);
    expect(brief.stderr).toEqual(['err\n']);
    expect(brief.artifacts).toEqual(testBundle.artifacts);
    expect(brief.meta.view).toBe('brief');
  });

  it('when view=headline, then steps, stdout and stderr are omitted', () => {
    const headline = applyView(testBundle, 'headline');
    for (const field of ['steps', 'stdout', 'stderr']) expect(field in headline).toBe(false);
    expect(headline.meta.view).toBe('headline');
    expect(headline.error).toEqual(testBundle.error);
  });

  it('when view=headline, then each artifacts list holds at most 5 and totals count them all', () => {
    const { artifacts } = applyView(testBundle, 'headline');
    expect(artifacts.screenshots.map((a) => a.artifactId)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    expect(artifacts.traces).toHaveLength(5);
    expect(artifacts.videos).toHaveLength(1);
    expect(artifacts.totals).toEqual({ screenshots: 7, videos: 1, traces: 5, other: 0 });
  });

  it('when a view is applied, then the input bundle is not changed', () => {
    applyView(testBundle, 'headline');
    expect(testBundle.steps).toBe(steps);
    expect(testBundle.artifacts.screenshots).toHaveLength(7);
    expect(testBundle.artifacts.totals).toBeUndefined();
  });
});

describe('applyView at suite scope', () => {
  it.each(['brief', 'headline'] as const)('when view=%s, then every item’s failureWindow is null', (view) => {
    const cut = applyView(suiteBundle, view);
    expect(cut.items.map((i) => i.failureWindow)).toEqual([null, null]);
    expect(cut.items.map((i) => i.caseId)).toEqual(['c1', 'c2']);
    expect(cut.meta.view).toBe(view);
  });

  it('when view=full, then the failure windows are kept', () => {
    expect(applyView(suiteBundle, 'full').items.map((i) => i.failureWindow)).toEqual([window, window]);
  });
});

describe('applyView at run scope', () => {
  it('when view=full (the only run view), then the bundle is unchanged', () => {
    expect(applyView(runBundle, 'full')).toEqual(runBundle);
  });
});

describe('schemas', () => {
  it.each([
    ['run', runBundle],
    ['suite', suiteBundle],
    ['test', testBundle],
  ] as const)(
    'when a %s bundle is cut to each view, then it still matches the DebugBundle schema',
    (_, bundle) => {
      const views = bundle.scope === 'run' ? (['full'] as const) : (['full', 'brief', 'headline'] as const);
      for (const view of views) expect(DebugBundle.safeParse(applyView(bundle, view)).error).toBeUndefined();
    },
  );

  it('when an attempt index is negative or a test-scope link is missing, then the schema rejects it', () => {
    expect(
      TestBundle.safeParse({
        ...testBundle,
        attemptHistory: [{ attempt: -1, status: 'failed', durationMs: 1, error: null }],
      }).success,
    ).toBe(false);
    const { traceViewerUrl: _dropped, ...links } = testBundle.links;
    expect(TestBundle.safeParse({ ...testBundle, links }).success).toBe(false);
  });

  it('when the OpenAPI document is generated, then the bundle and its query convert to JSON Schema', () => {
    const options = { unrepresentable: 'any', target: 'draft-2020-12' } as const;
    const bundle = JSON.stringify(z.toJSONSchema(DebugBundleEnvelope, { ...options, io: 'output' }));
    for (const field of ['alsoFailedIn', 'failureWindow', 'attemptHistory', 'traceViewerUrl', 'totals']) {
      expect(bundle).toContain(`"${field}"`);
    }
    const query = z.toJSONSchema(DebugBundleQueryDoc, { ...options, io: 'input' }) as {
      properties: Record<string, { type?: string }>;
      required?: string[];
    };
    expect(Object.keys(query.properties)).toEqual([
      'runId',
      'suiteId',
      'caseId',
      'attempt',
      'as',
      'view',
      'page',
      'limit',
      'budgetChars',
      'project',
    ]);
    expect(query.properties.page?.type).toBe('integer');
    expect(query.required ?? []).toEqual([]);
  });

  it('when the run envelope carries pagination beside data, then it matches', () => {
    const envelope = {
      success: true,
      data: runBundle,
      pagination: { page: 1, limit: 10, total: 1, hasNext: false, hasPrev: false },
    };
    expect(DebugBundleEnvelope.safeParse(envelope).success).toBe(true);
  });
});

describe('capArtifacts and groupArtifacts', () => {
  it('when attachments are grouped, then content types and trace names decide the kind, in order', () => {
    const grouped = groupArtifacts([
      artifact(1, 'image/png'),
      artifact(2, 'video/webm'),
      artifact(3, 'application/zip', 'trace'),
      artifact(4, 'application/zip', 'report.zip'),
      artifact(5, 'text/plain'),
      artifact(6, 'IMAGE/JPEG'),
    ]);
    expect(grouped.screenshots.map((a) => a.artifactId)).toEqual(['a1', 'a6']);
    expect(grouped.videos.map((a) => a.artifactId)).toEqual(['a2']);
    expect(grouped.traces.map((a) => a.artifactId)).toEqual(['a3']);
    expect(grouped.other.map((a) => a.artifactId)).toEqual(['a4', 'a5']);
  });

  it('when lists are shorter than the cap, then they are kept whole and still counted', () => {
    expect(
      capArtifacts({ screenshots: [], videos: [artifact(1, 'video/mp4')], traces: [], other: [] }, 5),
    ).toEqual({
      screenshots: [],
      videos: [artifact(1, 'video/mp4')],
      traces: [],
      other: [],
      totals: { screenshots: 0, videos: 1, traces: 0, other: 0 },
    });
  });
});
