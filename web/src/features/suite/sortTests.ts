/** A spec file's tests as the suite page lists them: failed, flaky, passed, skipped, then by title. */
import type { RunSpecTest } from '../../api/queries';

const ORDER: Record<string, number> = { failed: 0, flaky: 1, passed: 2, skipped: 3 };

export const sortTests = (tests: readonly RunSpecTest[]): RunSpecTest[] =>
  [...tests].sort(
    (a, b) =>
      (ORDER[a.outcome] ?? 9) - (ORDER[b.outcome] ?? 9) ||
      a.titlePath.join(' ').localeCompare(b.titlePath.join(' ')),
  );
