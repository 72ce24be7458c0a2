/** The run's rows as shown: filtered by the URL's search, with the files opened and the groups closed by hand. */
import { useDeferredValue, useMemo, useState } from 'react';
import { failureKey, type RunDetail, type RunFailure, type RunFailures } from '../../api/queries';
import { errorHeadline, platformsOf, runRows } from '../../components/runRows';
import type { RunSearch } from './search';
import { toggled } from './toggled';

type Specs = NonNullable<RunDetail['specs']>;

/** Each failed test's verdict and signature, by test and platform (`failureKey`). */
export function failuresByTest(failures: RunFailures | null | undefined): ReadonlyMap<string, RunFailure> {
  return new Map((failures?.items ?? []).map((item) => [failureKey(item.testCaseId, item.project), item]));
}

/** The spec files with only the failed tests of one verdict. */
export function withVerdict(
  specs: Specs,
  failures: ReadonlyMap<string, RunFailure>,
  verdict: NonNullable<RunSearch['verdict']>,
): Specs {
  return specs
    .map((spec) => {
      const tests = spec.tests.filter(
        (test) => failures.get(failureKey(test.testCaseId, test.project))?.verdict === verdict,
      );
      return { ...spec, tests };
    })
    .filter((spec) => spec.tests.length > 0);
}

/**
 * The error groups of the failures section (by error headline, as `runRows` groups them) with the
 * signatures of their tests: a group's link goes to its error group, and says when it spans several.
 */
export function groupSignatures(
  specs: Specs | undefined,
  failures: ReadonlyMap<string, RunFailure>,
): ReadonlyMap<string, { first: { id: string; text: string }; count: number }> {
  const groups = new Map<string, Map<string, { id: string; text: string }>>();
  for (const spec of specs ?? []) {
    for (const test of spec.tests) {
      if (test.outcome !== 'failed') continue;
      const signature = failures.get(failureKey(test.testCaseId, test.project))?.signature;
      if (!signature) continue;
      const key = `group:failed:${errorHeadline(test.errorMessage)}`;
      const group = groups.get(key) ?? new Map<string, { id: string; text: string }>();
      group.set(signature.id, signature);
      groups.set(key, group);
    }
  }
  return new Map(
    [...groups].map(([key, signatures]) => [
      key,
      { first: [...signatures.values()][0]!, count: signatures.size },
    ]),
  );
}

export function useRunRows(
  specs: RunDetail['specs'] | undefined,
  search: RunSearch,
  failures?: RunFailures | null,
) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const text = useDeferredValue(search.q);
  const platforms = useMemo(() => (specs ? platformsOf(specs) : []), [specs]);
  const verdicts = useMemo(() => failuresByTest(failures), [failures]);
  const shown = useMemo(
    () => (specs && search.verdict ? withVerdict(specs, verdicts, search.verdict) : specs),
    [specs, verdicts, search.verdict],
  );
  const signatures = useMemo(() => groupSignatures(specs, verdicts), [specs, verdicts]);
  const rows = useMemo(
    () =>
      shown
        ? runRows(shown, { status: search.status, platform: search.platform, text }, expanded, collapsed)
        : [],
    [shown, search.status, search.platform, text, expanded, collapsed],
  );
  return {
    rows,
    platforms,
    collapsed,
    verdicts,
    signatures,
    toggleFile: (file: string) => setExpanded((set) => toggled(set, file)),
    toggleGroup: (key: string) => setCollapsed((set) => toggled(set, key)),
  };
}

export type RunRowsState = ReturnType<typeof useRunRows>;
