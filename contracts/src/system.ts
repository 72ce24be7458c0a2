import { z } from 'zod';
import { defineEvent } from './events';

/** Each start of a Verdict process that owns a data folder; an operational audit trail of its boots. */
export const InstanceStarted = defineEvent(
  'instance.started',
  1,
  z.object({
    mode: z.enum(['embedded', 'distributed']),
    service: z.string(),
    version: z.string(),
    nodeVersion: z.string(),
    pid: z.number().int(),
  }),
);
