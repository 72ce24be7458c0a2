import { displayEventName, eventNamesOfDelivery, normalizeEventNames } from './eventNames';

const cutover = new Date('2026-12-11T00:00:00Z');
const before = new Date('2026-12-10T23:59:59.999Z');

describe('event names and the cutover (spec §6)', () => {
  it('when a write before the cutover uses either spelling, then the current names are kept, once each', () => {
    expect(normalizeEventNames(['RUN_FINISHED', 'run.started', 'run.finished'], before, cutover)).toEqual([
      'run.finished',
      'run.started',
    ]);
  });

  it('when a write at the cutover instant uses an older spelling, then it is refused naming the entry', () => {
    expect(() => normalizeEventNames(['run.started', 'RUN_STARTED'], cutover, cutover)).toThrow(
      /^events\[1\]: RUN_STARTED is no longer accepted since 2026-12-11T00:00:00.000Z; use run.started$/,
    );
  });

  it('when read before the cutover, then the older spelling shows; from it, the new one', () => {
    expect(displayEventName('run.finished', before, cutover)).toBe('RUN_FINISHED');
    expect(displayEventName('run.finished', cutover, cutover)).toBe('run.finished');
  });

  it('when delivered before the cutover, then event is the older name and eventName the new; after, event only', () => {
    expect(eventNamesOfDelivery('run.started', before, cutover)).toEqual({
      event: 'RUN_STARTED',
      eventName: 'run.started',
    });
    expect(eventNamesOfDelivery('run.started', cutover, cutover)).toEqual({ event: 'run.started' });
  });
});

describe('names without an older spelling (the quarantine events of issue 32)', () => {
  const quarantine = ['test.quarantined', 'test.quarantine-lifted', 'test.quarantine-expired'] as const;

  it('when a write names them before or after the cutover, then they are kept as written', () => {
    expect(normalizeEventNames([...quarantine, 'RUN_FINISHED'], before, cutover)).toEqual([
      ...quarantine,
      'run.finished',
    ]);
    expect(normalizeEventNames([...quarantine], cutover, cutover)).toEqual([...quarantine]);
  });

  it('when read before or after the cutover, then they read as themselves', () => {
    for (const name of quarantine) {
      expect(displayEventName(name, before, cutover)).toBe(name);
      expect(displayEventName(name, cutover, cutover)).toBe(name);
    }
  });

  it('when delivered before the cutover, then the name is in event and eventName alike; after, event only', () => {
    expect(eventNamesOfDelivery('test.quarantine-lifted', before, cutover)).toEqual({
      event: 'test.quarantine-lifted',
      eventName: 'test.quarantine-lifted',
    });
    expect(eventNamesOfDelivery('test.quarantine-lifted', cutover, cutover)).toEqual({
      event: 'test.quarantine-lifted',
    });
  });

  it('when the run events are named, then nothing about them changed', () => {
    expect(displayEventName('run.started', before, cutover)).toBe('RUN_STARTED');
    expect(eventNamesOfDelivery('run.finished', before, cutover)).toEqual({
      event: 'RUN_FINISHED',
      eventName: 'run.finished',
    });
  });
});
