import { integer, oneOf, text, type Raw } from '../../search';

export const QUARANTINE_VIEWS = ['active', 'expiring', 'expired', 'lifted'] as const;
export type QuarantineView = (typeof QUARANTINE_VIEWS)[number];

export interface QuarantineSearch {
  /** Absent: active. */
  view?: QuarantineView;
  owner?: string;
  page?: number;
}

export const validateQuarantineSearch = (raw: Raw): QuarantineSearch => ({
  view: oneOf(raw, 'view', QUARANTINE_VIEWS),
  owner: text(raw, 'owner'),
  page: integer(raw, 'page', 1),
});
