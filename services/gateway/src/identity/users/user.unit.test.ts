import { UserCreated } from '@verdict/contracts';
import { given } from '@verdict/platform/testing';
import { normalizeEmail, userDecider, userStream } from './user';

const now = new Date('2026-03-01T10:00:00.000Z');
const command = {
  type: 'createUser' as const,
  userId: 'u-1',
  email: ' Ada.Lovelace@Example.org ',
  firstName: 'Ada',
  lastName: 'Lovelace',
  now,
};

describe('user decider', () => {
  it('when a user is created, then user.created keeps the address as given, trimmed', () => {
    given(userDecider, [])
      .when(command)
      .then([
        UserCreated.of({
          userId: 'u-1',
          email: 'Ada.Lovelace@Example.org',
          firstName: 'Ada',
          lastName: 'Lovelace',
          createdAt: now.toISOString(),
        }),
      ]);
  });

  it('when the e-mail address already has a user, then creating another is a CONFLICT', () => {
    const existing = UserCreated.of({
      userId: 'u-0',
      email: 'ada.lovelace@example.org',
      firstName: 'A',
      lastName: 'L',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    given(userDecider, [existing])
      .when(command)
      .thenRefuses({ code: 'CONFLICT', message: /e-mail/ });
  });

  it('when two addresses differ only in letter case or surrounding spaces, then they share one stream', () => {
    expect(userStream(' ADA.lovelace@EXAMPLE.org')).toBe(userStream('ada.lovelace@example.org'));
    expect(userStream('ada@example.org')).not.toBe(userStream('ada2@example.org'));
    expect(normalizeEmail('Zoë@Example.ORG')).toBe('zoë@example.org');
  });
});
