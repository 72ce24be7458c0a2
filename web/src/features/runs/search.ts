import { integer, oneOf, text, type Raw } from '../../search';

export const RUN_STATUSES = ['running', 'finished', 'passed', 'failed'] as const;
export const DATE_RANGES = ['24h', '7d', '30d', '90d'] as const;

export interface RunsSearch {
  page?: number;
  branch?: string;
  environment?: string;
  status?: (typeof RUN_STATUSES)[number];
  range?: (typeof DATE_RANGES)[number];
  search?: string;
}

export const validateRunsSearch = (raw: Raw): RunsSearch => ({
  page: integer(raw, 'page', 1),
  branch: text(raw, 'branch'),
  environment: text(raw, 'environment'),
  status: oneOf(raw, 'status', RUN_STATUSES),
  range: oneOf(raw, 'range', DATE_RANGES),
  search: text(raw, 'search'),
});
