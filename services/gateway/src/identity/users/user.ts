/**
 * The user aggregate. Its stream is named after the normalized e-mail address, so uniqueness of e-mails
 * is the event store's own guarantee: two concurrent creations both expect `no_stream`, one wins, the
 * other re-decides on the winner's stream and is refused. Commands addressed by user id find the address
 * through the read model first.
 */
import { UserCreated, parseIdentityEvent, type UserEvent } from '@verdict/contracts';
import { ConflictError, type Decider } from '@verdict/platform';

export type UserState =
  | { status: 'absent' }
  | {
      status: 'active';
      userId: string;
      email: string;
      firstName: string;
      lastName: string;
      createdAt: string;
    };

export type UserCommand = {
  type: 'createUser';
  userId: string;
  email: string;
  firstName: string;
  lastName: string;
  now: Date;
};

/** The comparable form of an address: trimmed, Unicode-normalized, lower-case. */
export function normalizeEmail(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

/** The stream of the user with this e-mail address, whatever its letter case. */
export const userStream = (email: string): string => `user-${normalizeEmail(email)}`;

export function initialState(): UserState {
  return { status: 'absent' };
}

export function evolve(_state: UserState, event: UserEvent): UserState {
  const { userId, email, firstName, lastName, createdAt } = event.data;
  return { status: 'active', userId, email, firstName, lastName, createdAt };
}

export function decide(command: UserCommand, state: UserState): UserEvent[] {
  if (state.status !== 'absent') throw new ConflictError('A user with this e-mail address already exists');
  return [
    UserCreated.of({
      userId: command.userId,
      email: command.email.trim(),
      firstName: command.firstName,
      lastName: command.lastName,
      createdAt: command.now.toISOString(),
    }),
  ];
}

function parse(event: { type: string; version: number; data: unknown }): UserEvent {
  const parsed = parseIdentityEvent(event);
  if (parsed.type === 'user.created') return parsed;
  throw new Error(`${parsed.type} does not belong to a user stream`);
}

/**
 * The user decider, for handleCommand.
 *
 * @example await handleCommand(store, userStream(email), userDecider, { type: 'createUser', userId, email, … });
 */
export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState,
  evolve,
  decide,
  parse,
};
