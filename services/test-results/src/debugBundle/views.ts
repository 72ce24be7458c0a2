import type {
  ArtifactTotals,
  BundleArtifact,
  BundleArtifacts,
  BundleView,
  DebugBundle,
  RunBundle,
  SuiteBundle,
  TestBundle,
} from './types';

/** Spec §8: under view=headline each artifact list holds at most this many entries. */
export const HEADLINE_ARTIFACT_CAP = 5;

/**
 * Cuts a full bundle down to a view (spec §4.2 "View rules"); `meta.view` records which. Returns a new
 * bundle; the input is not changed.
 * - test scope: `brief` omits `steps`; `headline` omits `steps`, `stdout` and `stderr`, and caps each
 *   `artifacts.*` list at 5, adding `artifacts.totals`;
 * - suite scope: `brief` and `headline` set each item's `failureWindow` to null;
 * - run scope: only `full` exists (the query parser rejects the others), so the bundle is returned as is.
 *
 * @example const data = applyView(fullBundle, request.view);
 */
export function applyView(bundle: RunBundle, view: BundleView): RunBundle;
export function applyView(bundle: SuiteBundle, view: BundleView): SuiteBundle;
export function applyView(bundle: TestBundle, view: BundleView): TestBundle;
export function applyView(bundle: DebugBundle, view: BundleView): DebugBundle;
export function applyView(bundle: DebugBundle, view: BundleView): DebugBundle {
  switch (bundle.scope) {
    case 'run':
      return bundle;
    case 'suite':
      return suiteView(bundle, view);
    case 'test':
      return testView(bundle, view);
  }
}

function suiteView(bundle: SuiteBundle, view: BundleView): SuiteBundle {
  const meta = { ...bundle.meta, view };
  if (view === 'full') return { ...bundle, meta };
  return { ...bundle, meta, items: bundle.items.map((item) => ({ ...item, failureWindow: null })) };
}

function testView(bundle: TestBundle, view: BundleView): TestBundle {
  const meta = { ...bundle.meta, view };
  if (view === 'full') return { ...bundle, meta };
  const { steps: _steps, ...withoutSteps } = bundle;
  if (view === 'brief') return { ...withoutSteps, meta };
  const { stdout: _stdout, stderr: _stderr, ...withoutOutput } = withoutSteps;
  return { ...withoutOutput, meta, artifacts: capArtifacts(bundle.artifacts, HEADLINE_ARTIFACT_CAP) };
}

/**
 * Each artifact list cut to `cap` entries, with `totals` counting what there was.
 *
 * @example capArtifacts(bundle.artifacts, 5).totals // { screenshots: 12, videos: 1, traces: 1, other: 0 }
 */
export function capArtifacts(artifacts: BundleArtifacts, cap: number): BundleArtifacts {
  const totals: ArtifactTotals = {
    screenshots: artifacts.screenshots.length,
    videos: artifacts.videos.length,
    traces: artifacts.traces.length,
    other: artifacts.other.length,
  };
  return {
    screenshots: artifacts.screenshots.slice(0, cap),
    videos: artifacts.videos.slice(0, cap),
    traces: artifacts.traces.slice(0, cap),
    other: artifacts.other.slice(0, cap),
    totals,
  };
}

/**
 * Sorts an attempt's attachments into the bundle's kinds: `image/*` are screenshots, `video/*` videos,
 * Playwright trace archives (a zip named `trace…`) traces, the rest other. Order is kept.
 *
 * @example const artifacts = groupArtifacts(result.attachments.map((a) => ({ ...a, url: signedUrl(a) })));
 */
export function groupArtifacts(attachments: readonly BundleArtifact[]): BundleArtifacts {
  const grouped: BundleArtifacts = { screenshots: [], videos: [], traces: [], other: [] };
  for (const attachment of attachments) grouped[artifactKind(attachment)].push(attachment);
  return grouped;
}

function artifactKind({ name, contentType }: BundleArtifact): keyof ArtifactTotals {
  const type = contentType.toLowerCase();
  if (type.startsWith('image/')) return 'screenshots';
  if (type.startsWith('video/')) return 'videos';
  if (/^trace\b/i.test(name) && (type === 'application/zip' || type === 'application/x-zip-compressed')) {
    return 'traces';
  }
  return 'other';
}
