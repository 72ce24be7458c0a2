import { parseQuarantineEvent, type QuarantineEvent } from '@verdict/contracts';
import { quarantineEvents } from '../testKit';
import {
  evolveQuarantine,
  webhookEventOfQuarantine,
  webhookQuarantineOf,
  type QuarantineRecord,
} from './webhookQuarantines';

const PUBLIC_URL = 'https://verdict.example.com/';

/** Folds the events, returning the record and what each event's delivery would describe. */
function fold(events: QuarantineEvent[], start?: QuarantineRecord) {
  let record = start;
  const described: (QuarantineRecord | undefined)[] = [];
  for (const event of events) {
    const next = evolveQuarantine(record, event);
    record = next.record;
    described.push(next.described);
  }
  return { record, described };
}

describe('the quarantine record of the webhooks service', () => {
  const q = quarantineEvents('p1', 'q1');
  const made = parseQuarantineEvent(q.quarantined());
  const extended = parseQuarantineEvent(q.extended('2026-03-29T09:00:00.000Z'));
  const changed = parseQuarantineEvent(q.signaturesChanged(['ba9876543210']));
  const lifted = parseQuarantineEvent(q.lifted());
  const expired = parseQuarantineEvent(q.expired());

  it('when a quarantine is made, then its delivery describes it active, with its signature ids and its page', () => {
    const { described } = fold([made]);
    expect(described[0] && webhookQuarantineOf(described[0], PUBLIC_URL)).toEqual({
      id: 'q1',
      testCaseId: 'tc-cart-pays',
      file: 'tests/cart.spec.ts',
      titlePath: ['Cart', 'pays'],
      project: 'chromium',
      reason: 'Flaky payment iframe',
      ownerId: 'u-owner',
      expiresAt: '2026-03-15T09:00:00.000Z',
      status: 'active',
      automatic: false,
      signatures: ['0123456789ab'],
      createdBy: 'u-admin',
      endedAt: null,
      endedBy: null,
      endReason: null,
      url: 'https://verdict.example.com/projects/p1/quarantine',
    });
  });

  it('when it is extended, its signatures change and it is lifted, then the lifted delivery describes all of it', () => {
    const { record, described } = fold([made, extended, changed, lifted]);
    expect(described.map((d) => d?.status)).toEqual(['active', undefined, undefined, 'lifted']);
    expect(record).toMatchObject({
      status: 'lifted',
      expiresAt: '2026-03-29T09:00:00.000Z',
      signatures: ['ba9876543210'],
      endedAt: '2026-03-03T09:00:00.000Z',
      endedBy: 'u-owner',
      endReason: 'Iframe wait fixed',
    });
  });

  it('when it expires, then it ended at its expiry, by no one, and its url lists expired quarantines', () => {
    const { record } = fold([made, expired]);
    expect(record).toMatchObject({ status: 'expired', endedAt: '2026-03-15T09:00:00.000Z', endedBy: null });
    expect(record && webhookQuarantineOf(record, PUBLIC_URL).url).toBe(
      'https://verdict.example.com/projects/p1/quarantine?view=expired',
    );
  });

  it('when the same events are applied twice, then the record is the same and so is each description', () => {
    const once = fold([made, extended, lifted]);
    const twice = fold([made, extended, lifted], once.record);
    expect(twice.record).toEqual(once.record);
    expect(twice.described).toEqual([once.described[0], undefined, once.record]);
  });

  it('when an ended quarantine gets another end, then it keeps its first', () => {
    const { record } = fold([made, lifted, expired]);
    expect(record).toMatchObject({ status: 'lifted', endedBy: 'u-owner' });
  });

  it('when events come for a quarantine never seen made, then there is no record and nothing to describe', () => {
    expect(fold([lifted, expired])).toEqual({ record: undefined, described: [undefined, undefined] });
  });

  it('when asked which events are delivered, then made, lifted and expired are; extended and changed are not', () => {
    expect([made, extended, changed, lifted, expired].map(webhookEventOfQuarantine)).toEqual([
      'test.quarantined',
      null,
      null,
      'test.quarantine-lifted',
      'test.quarantine-expired',
    ]);
  });
});
