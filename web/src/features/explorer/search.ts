import { integer, oneOf, text, type Raw } from '../../search';

export const EXPLORER_SORTS = ['lastExecution', 'failRate', 'avgDuration', 'flakyRate'] as const;
export const EXPLORER_STATUSES = ['passed', 'failed', 'flaky', 'skipped'] as const;

export interface ExplorerSearch {
  page?: number;
  search?: string;
  status?: (typeof EXPLORER_STATUSES)[number];
  platform?: string;
  environment?: string;
  specFilePath?: string;
  days?: number;
  sortBy?: (typeof EXPLORER_SORTS)[number];
  order?: 'asc' | 'desc';
}

export const validateExplorerSearch = (raw: Raw): ExplorerSearch => ({
  page: integer(raw, 'page', 1),
  search: text(raw, 'search'),
  status: oneOf(raw, 'status', EXPLORER_STATUSES),
  platform: text(raw, 'platform'),
  environment: text(raw, 'environment'),
  specFilePath: text(raw, 'specFilePath'),
  days: integer(raw, 'days', 1),
  sortBy: oneOf(raw, 'sortBy', EXPLORER_SORTS),
  order: oneOf(raw, 'order', ['asc', 'desc'] as const),
});
