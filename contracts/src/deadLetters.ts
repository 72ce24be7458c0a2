import { z } from 'zod';
import { queryInteger } from './http';

/**
 * Dead letters as the admin API shows them (`/admin/v1/dead-letters`): a message a consumer could not
 * handle after its retries, kept with the error so that an operator sees it and, once the cause is fixed,
 * replays it into that consumer (docs/operations.md, "Dead letters").
 */

/** `pending`: not replayed; `replaying`: sent to its consumer again, not yet handled; `replayed`: handled. */
export const DeadLetterStatus = z.enum(['pending', 'replaying', 'replayed']);
export type DeadLetterStatus = z.infer<typeof DeadLetterStatus>;

const Name = z.string().trim().min(1).max(500);

export const DeadLetterRecord = z.object({
  id: z.string().describe('Stable per consumer and event: dead-lettered again, it is the same letter'),
  consumer: z.string().describe('The consumer group that could not handle the message'),
  topic: z.string(),
  partition: z.number().int(),
  offset: z.string().describe('Where the message was when it was last dead-lettered'),
  key: z.string(),
  headers: z
    .record(z.string(), z.string())
    .describe('The message headers (event-id, event-type, stream-id…)'),
  eventId: z.string().nullable(),
  eventType: z.string().nullable(),
  error: z.string().describe('The last error the consumer raised, `Name: message`'),
  attempts: z.number().int().describe('Deliveries the message failed the last time'),
  times: z.number().int().describe('How many times it was dead-lettered (again after a failed replay)'),
  firstDeadLetteredAt: z.iso.datetime(),
  lastDeadLetteredAt: z.iso.datetime(),
  status: DeadLetterStatus,
  replayRequestedAt: z.iso.datetime().nullable(),
  replayedAt: z.iso.datetime().nullable(),
  value: z.string().describe('The message as it was on the topic (an event envelope as JSON)'),
});
export type DeadLetterRecord = z.infer<typeof DeadLetterRecord>;

/** Oldest first, so that pages do not shift while letters are added. */
export const DeadLettersQuery = z.strictObject({
  page: queryInteger({ min: 1, fallback: 1 }),
  limit: queryInteger({ min: 1, max: 100, fallback: 20 }),
  status: DeadLetterStatus.optional(),
  consumer: Name.optional().describe('Only the letters of this consumer group'),
  eventId: Name.optional().describe('Only the letters of this event (one per consumer that failed it)'),
});
export type DeadLettersQuery = z.infer<typeof DeadLettersQuery>;

/** Which letters to replay: every one not replayed yet, or those the fields name (all of them must match). */
export const ReplayDeadLettersRequest = z.strictObject({
  id: Name.optional().describe('One letter, by its id'),
  eventId: Name.optional().describe('The letters of one event (each into its own consumer)'),
  consumer: Name.optional().describe('The letters of one consumer group'),
});
export type ReplayDeadLettersRequest = z.infer<typeof ReplayDeadLettersRequest>;

export const ReplayedDeadLetters = z.object({
  replayed: z
    .array(DeadLetterRecord)
    .describe('The letters sent to their consumers again, oldest first; replayed ones are never sent again'),
});
export type ReplayedDeadLetters = z.infer<typeof ReplayedDeadLetters>;
