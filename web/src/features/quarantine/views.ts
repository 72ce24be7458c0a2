/** The quarantine page's views as the API's query: active, expiring within a week, expired, lifted. */
import type { QuarantinesQuery } from '../../api/quarantines';
import type { QuarantineSearch, QuarantineView } from './search';

export const PAGE_SIZE = 25;
/** "Expiring soon": active quarantines that end within this many days. */
export const SOON_DAYS = 7;

export const VIEW_LABELS: Record<QuarantineView, string> = {
  active: 'Active',
  expiring: `Expiring soon (${SOON_DAYS} days)`,
  expired: 'Expired',
  lifted: 'Lifted',
};

export function quarantinesOf(search: QuarantineSearch): QuarantinesQuery {
  const view = search.view ?? 'active';
  return {
    status: view === 'expiring' ? 'active' : view,
    ...(view === 'expiring' ? { expiringWithinDays: SOON_DAYS } : {}),
    ...(search.owner ? { ownerId: search.owner } : {}),
    page: search.page ?? 1,
    limit: PAGE_SIZE,
  };
}

/** What an empty view says. */
export const EMPTY: Record<QuarantineView, string> = {
  active: 'No test is quarantined: every failure counts.',
  expiring: `No quarantine ends in the next ${SOON_DAYS} days.`,
  expired: 'No quarantine has expired yet.',
  lifted: 'No quarantine has been lifted yet.',
};
