/**
 * The quarantine aggregate (issue 32), stream `quarantine-<id>`: made with a reason, an owner, an expiry
 * and its evidence; extended, its signatures edited, lifted (by a person, or by its release rule), or
 * expired (on the clock: a sweep sends `expire`, which does nothing before the expiry).
 */
import {
  MAX_QUARANTINE_DAYS,
  parseQuarantineEvent,
  TestQuarantined,
  TestQuarantineExpired,
  TestQuarantineExtended,
  TestQuarantineLifted,
  TestQuarantineSignaturesChanged,
  type ForgivenSignature,
  type QuarantineEvent,
  type QuarantineEvidence,
  type QuarantineTarget,
  type ReleaseRule,
} from '@verdict/contracts';
import { ConflictError, NotFoundError, ValidationError, type Decider } from '@verdict/platform';

const DAY_MS = 86_400_000;

export const quarantineStream = (quarantineId: string): string => `quarantine-${quarantineId}`;

export type QuarantineState =
  | { status: 'none' }
  | {
      status: 'active' | 'lifted' | 'expired';
      quarantineId: string;
      projectId: string;
      target: QuarantineTarget;
      ownerId: string;
      expiresAt: string;
      signatures: ForgivenSignature[];
      automatic: boolean;
    };

export type QuarantineCommand =
  | {
      type: 'quarantine';
      quarantineId: string;
      projectId: string;
      target: QuarantineTarget;
      reason: string;
      ownerId: string;
      expiresAt: Date;
      evidence: QuarantineEvidence;
      releaseRule: ReleaseRule | null;
      automatic: boolean;
      by: string;
      now: Date;
    }
  | { type: 'extend'; expiresAt: Date; by: string; now: Date }
  | { type: 'changeSignatures'; signatures: ForgivenSignature[]; by: string; now: Date }
  | { type: 'lift'; reason: string; automatic: boolean; by: string; now: Date }
  | { type: 'expire'; now: Date };

/** An expiry must lie ahead, and at most MAX_QUARANTINE_DAYS from now. */
function checkExpiry(expiresAt: Date, now: Date): void {
  if (Number.isNaN(expiresAt.getTime())) throw new ValidationError('expiresAt: must be a date');
  if (expiresAt.getTime() <= now.getTime()) throw new ValidationError('expiresAt: must be in the future');
  if (expiresAt.getTime() > now.getTime() + MAX_QUARANTINE_DAYS * DAY_MS) {
    throw new ValidationError(`expiresAt: must be at most ${MAX_QUARANTINE_DAYS} days from now`);
  }
}

/** Active at `now`: neither lifted nor expired, and its expiry not yet reached (the sweep may lag). */
export function isActive(state: QuarantineState, now: Date): boolean {
  return state.status === 'active' && Date.parse(state.expiresAt) > now.getTime();
}

/** Whether the quarantine forgives a failure with this signature at `now`: only its evidence's signatures. */
export function forgives(state: QuarantineState, signatureId: string | null, now: Date): boolean {
  return (
    isActive(state, now) &&
    signatureId !== null &&
    state.status !== 'none' &&
    state.signatures.some((signature) => signature.id === signatureId)
  );
}

export function evolve(state: QuarantineState, event: QuarantineEvent): QuarantineState {
  switch (event.type) {
    case 'test.quarantined': {
      const { quarantineId, projectId, target, ownerId, expiresAt, evidence, automatic } = event.data;
      return {
        status: 'active',
        quarantineId,
        projectId,
        target,
        ownerId,
        expiresAt,
        signatures: evidence.signatures,
        automatic,
      };
    }
    case 'test.quarantine-extended':
      return state.status === 'none' ? state : { ...state, expiresAt: event.data.expiresAt };
    case 'test.quarantine-signatures-changed':
      return state.status === 'none' ? state : { ...state, signatures: event.data.signatures };
    case 'test.quarantine-lifted':
      return state.status === 'none' ? state : { ...state, status: 'lifted' };
    case 'test.quarantine-expired':
      return state.status === 'none' ? state : { ...state, status: 'expired' };
  }
}

/** A command on a quarantine that has ended (or has reached its expiry): 409, it must be made again. */
function ended(state: Exclude<QuarantineState, { status: 'none' }>): ConflictError {
  return new ConflictError(
    `Quarantine ${state.quarantineId} is ${state.status === 'active' ? 'expired' : state.status}`,
  );
}

export function decide(command: QuarantineCommand, state: QuarantineState): QuarantineEvent[] {
  const at = command.now.toISOString();
  if (command.type === 'quarantine') {
    if (state.status !== 'none') throw new ConflictError(`Quarantine ${command.quarantineId} already exists`);
    if (command.reason.trim() === '') throw new ValidationError('reason: must not be empty');
    checkExpiry(command.expiresAt, command.now);
    const { quarantineId, projectId, target, ownerId, evidence, releaseRule, automatic, by } = command;
    return [
      TestQuarantined.of({
        quarantineId,
        projectId,
        target,
        reason: command.reason.trim(),
        ownerId,
        expiresAt: command.expiresAt.toISOString(),
        evidence,
        releaseRule,
        automatic,
        by,
        at,
      }),
    ];
  }
  if (state.status === 'none') throw new NotFoundError('Quarantine not found');
  if (command.type === 'expire') {
    // The sweep sends it for every quarantine it sees due; anything else is not its business.
    if (state.status !== 'active' || Date.parse(state.expiresAt) > command.now.getTime()) return [];
    return [TestQuarantineExpired.of({ quarantineId: state.quarantineId, expiredAt: state.expiresAt, at })];
  }
  if (!isActive(state, command.now)) throw ended(state);
  switch (command.type) {
    case 'extend':
      checkExpiry(command.expiresAt, command.now);
      if (command.expiresAt.getTime() <= Date.parse(state.expiresAt)) {
        throw new ValidationError('expiresAt: must be later than the current expiry');
      }
      return [
        TestQuarantineExtended.of({
          quarantineId: state.quarantineId,
          expiresAt: command.expiresAt.toISOString(),
          by: command.by,
          at,
        }),
      ];
    case 'changeSignatures': {
      if (command.signatures.length === 0) throw new ValidationError('signatures: must not be empty');
      const same =
        command.signatures.length === state.signatures.length &&
        command.signatures.every((signature) => state.signatures.some((kept) => kept.id === signature.id));
      if (same) return [];
      return [
        TestQuarantineSignaturesChanged.of({
          quarantineId: state.quarantineId,
          signatures: command.signatures,
          by: command.by,
          at,
        }),
      ];
    }
    case 'lift':
      return [
        TestQuarantineLifted.of({
          quarantineId: state.quarantineId,
          reason: command.reason.trim(),
          automatic: command.automatic,
          by: command.by,
          at,
        }),
      ];
  }
}

export const quarantineDecider: Decider<QuarantineCommand, QuarantineEvent, QuarantineState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
  parse: (event) => parseQuarantineEvent(event),
};
