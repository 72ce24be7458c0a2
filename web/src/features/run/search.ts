import { oneOf, text, type Raw } from '../../search';

export const RUN_FILTERS = ['failed', 'flaky', 'passed', 'skipped'] as const;
export const VERDICT_FILTERS = ['new', 'failing-on-base', 'known-flaky', 'quarantined'] as const;

export interface RunSearch {
  status?: (typeof RUN_FILTERS)[number];
  /** Only the failures with this verdict against the run's base. */
  verdict?: (typeof VERDICT_FILTERS)[number];
  platform?: string;
  q?: string;
  /** The run the "Compared with" panel compares with; else `baseBranch`, else the run's own base. */
  base?: string;
  baseBranch?: string;
}

export const validateRunSearch = (raw: Raw): RunSearch => ({
  status: oneOf(raw, 'status', RUN_FILTERS),
  verdict: oneOf(raw, 'verdict', VERDICT_FILTERS),
  platform: text(raw, 'platform'),
  q: text(raw, 'q'),
  base: text(raw, 'base'),
  baseBranch: text(raw, 'baseBranch'),
});
