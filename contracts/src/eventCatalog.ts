import { IDENTITY_EVENTS } from './identity';
import { MANUAL_TESTING_EVENTS } from './manualTestingEvents';
import { InstanceStarted } from './system';
import { TEST_RESULTS_EVENTS } from './testResultsEvents';

/**
 * Every event type a Verdict service writes, hence every contract of the bus: each one is a subject of the
 * schema registry in the distributed mode (one per type and version).
 */
export const EVENT_CATALOG = [
  ...IDENTITY_EVENTS,
  ...TEST_RESULTS_EVENTS,
  ...MANUAL_TESTING_EVENTS,
  InstanceStarted,
] as const;
