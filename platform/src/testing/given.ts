import type { AppError } from '../errors';
import type { DecidedEvent, Decider } from '../eventStore/handleCommand';

/**
 * given(events).when(command).then(events | error) for deciders: the history is folded with the
 * decider's own evolve, exactly as handleCommand does, so a test states behaviour, not state shapes.
 *
 * @example given(runDecider, [issued]).when({ type: 'revokeToken', tokenId, now }).then([revoked]);
 */
export function given<Command, Event extends DecidedEvent, State>(
  decider: Decider<Command, Event, State>,
  history: Event[],
) {
  const state = history.reduce((folded, event) => decider.evolve(folded, event), decider.initialState());
  return {
    when(command: Command) {
      const decide = () => decider.decide(command, state);
      return {
        then(expected: Event[]): void {
          expect(decide()).toEqual(expected);
        },
        thenRefuses(error: { code: AppError['code']; message?: RegExp }): void {
          let thrown: unknown;
          try {
            decide();
          } catch (caught) {
            thrown = caught;
          }
          expect(thrown).toMatchObject({ code: error.code });
          if (error.message) expect((thrown as Error).message).toMatch(error.message);
        },
      };
    },
  };
}
