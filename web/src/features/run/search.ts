import { oneOf, text, type Raw } from '../../search';

export const RUN_FILTERS = ['failed', 'flaky', 'passed', 'skipped'] as const;

export interface RunSearch {
  status?: (typeof RUN_FILTERS)[number];
  platform?: string;
  q?: string;
}

export const validateRunSearch = (raw: Raw): RunSearch => ({
  status: oneOf(raw, 'status', RUN_FILTERS),
  platform: text(raw, 'platform'),
  q: text(raw, 'q'),
});
