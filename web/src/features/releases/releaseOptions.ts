import type { Release } from '../../api/queries';

/** The releases as the options of a release select. */
export const releaseOptions = (releases: Release[]) => releases.map((r) => ({ value: r._id, label: r.name }));
