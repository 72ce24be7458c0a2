import type { BlobStore, Clock, Logger } from '@verdict/platform';
import type { ManualReadStore } from './readStore';
import type { Writes } from './writes';

/** What every route of the service is built from. */
export interface RouteDeps {
  writes: Writes;
  read: ManualReadStore;
  clock: Clock;
  blobs: BlobStore;
  /** Largest attachment accepted, in bytes. */
  attachmentMaxBytes: number;
  logger: Logger;
}
