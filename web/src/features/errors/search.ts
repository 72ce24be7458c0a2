import { integer, oneOf, text, type Raw } from '../../search';

export const ERROR_RANGES = ['24h', '7d', '14d', '30d', '90d'] as const;
export const ERROR_SORTS = ['occurrences', 'tests', 'firstSeen', 'lastSeen'] as const;

export interface ErrorsSearch {
  page?: number;
  range?: (typeof ERROR_RANGES)[number];
  branch?: string;
  environment?: string;
  search?: string;
  sortBy?: (typeof ERROR_SORTS)[number];
  order?: 'asc' | 'desc';
}

export const validateErrorsSearch = (raw: Raw): ErrorsSearch => ({
  page: integer(raw, 'page', 1),
  range: oneOf(raw, 'range', ERROR_RANGES),
  branch: text(raw, 'branch'),
  environment: text(raw, 'environment'),
  search: text(raw, 'search'),
  sortBy: oneOf(raw, 'sortBy', ERROR_SORTS),
  order: oneOf(raw, 'order', ['asc', 'desc'] as const),
});

/** An error group's page keeps the list's range, branch and environment, so its counts are the list's. */
export type ErrorGroupSearch = Pick<ErrorsSearch, 'range' | 'branch' | 'environment'>;

export const validateErrorGroupSearch = (raw: Raw): ErrorGroupSearch => ({
  range: oneOf(raw, 'range', ERROR_RANGES),
  branch: text(raw, 'branch'),
  environment: text(raw, 'environment'),
});
