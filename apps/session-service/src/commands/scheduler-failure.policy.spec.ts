import {
  JournalConflict,
  PartiallyCommittedDecision,
  SessionUnreplayable,
} from '../journal/session-store';
import { isTransient, routeFailure, type FailedWork } from './scheduler-failure.policy';

/** What PostgreSQL says when it refuses a write every time (23514, check_violation). */
const refusedWrite = Object.assign(new Error('new row violates check constraint'), {
  code: '23514',
});
/** A lock not granted in time (55P03): it may pass. */
const lockNotGranted = Object.assign(new Error('canceling statement due to lock timeout'), {
  code: '55P03',
});
const connectionRefused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
});
const domainBug = new TypeError("Cannot read properties of undefined (reading 'calls')");
const unreplayable = new SessionUnreplayable('s1', new Error('unknown event type'));
const partial = (cause: unknown) => new PartiallyCommittedDecision('s1', { cause });

/** Given work that failed with an error, when the policy routes it: then this. */
function when(work: FailedWork, error: unknown) {
  return routeFailure(work, error);
}

describe('D3 the session scheduler’s failure policy, given/when/then', () => {
  describe('a command decided at once', () => {
    it('D3 that committed nothing is rejected, so its message is naked and redelivered', () => {
      for (const error of [lockNotGranted, refusedWrite, domainBug]) {
        expect(when({ kind: 'direct', durable: false }, error)).toEqual({ kind: 'reject' });
      }
    });

    it('D3 whose session cannot be replayed quarantines it (S18), then is rejected', () => {
      expect(when({ kind: 'direct', durable: false }, unreplayable)).toEqual({
        kind: 'quarantine',
      });
    });

    it('D3 that failed after a commit is recovered from the journal when it may pass (S18)', () => {
      expect(when({ kind: 'direct', durable: true }, lockNotGranted)).toEqual({ kind: 'recover' });
      expect(when({ kind: 'direct', durable: true }, partial(connectionRefused))).toEqual({
        kind: 'recover',
      });
    });

    it('D3 that failed after a commit and would fail again ends its turn and is dead-lettered (X8)', () => {
      expect(when({ kind: 'direct', durable: true }, refusedWrite)).toEqual({
        kind: 'end_turn',
        deadLetter: true,
      });
      expect(when({ kind: 'direct', durable: true }, partial(domainBug))).toEqual({
        kind: 'end_turn',
        deadLetter: true,
      });
    });
  });

  describe('a command decided from the inbox', () => {
    it('D3 that committed nothing and may pass is retried after a growing delay', () => {
      expect(when({ kind: 'queued', durable: false }, lockNotGranted)).toEqual({ kind: 'retry' });
      expect(when({ kind: 'queued', durable: false }, new JournalConflict('raced'))).toEqual({
        kind: 'retry',
      });
    });

    it('D3 that can never be decided is dead-lettered by the scheduler, with the reason', () => {
      expect(when({ kind: 'queued', durable: false }, domainBug)).toEqual({
        kind: 'dead_letter',
        reason: "TypeError: Cannot read properties of undefined (reading 'calls')",
      });
    });

    it('D3 whose session cannot be replayed quarantines it', () => {
      expect(when({ kind: 'queued', durable: false }, unreplayable)).toEqual({
        kind: 'quarantine',
      });
    });

    it('D3 that failed after a commit goes as a direct command’s does', () => {
      expect(when({ kind: 'queued', durable: true }, lockNotGranted)).toEqual({ kind: 'recover' });
      expect(when({ kind: 'queued', durable: true }, refusedWrite)).toEqual({
        kind: 'end_turn',
        deadLetter: true,
      });
    });
  });

  describe('a prompt timer (S22)', () => {
    it('D3 spent by a partial commit is recovered, or its turn ended without a dead letter', () => {
      expect(when({ kind: 'timer' }, partial(lockNotGranted))).toEqual({ kind: 'recover' });
      expect(when({ kind: 'timer' }, partial(refusedWrite))).toEqual({
        kind: 'end_turn',
        deadLetter: false,
      });
    });

    it('D3 that committed nothing is rejected, so its row is tried again', () => {
      expect(when({ kind: 'timer' }, lockNotGranted)).toEqual({ kind: 'reject' });
      expect(when({ kind: 'timer' }, domainBug)).toEqual({ kind: 'reject' });
    });

    it('D3 whose session cannot be replayed quarantines it', () => {
      expect(when({ kind: 'timer' }, unreplayable)).toEqual({ kind: 'quarantine' });
    });
  });

  describe('recovering a turn', () => {
    it('D3 is retried while the failure may pass, and quarantines the session otherwise', () => {
      expect(when({ kind: 'recover' }, connectionRefused)).toEqual({ kind: 'retry' });
      expect(when({ kind: 'recover' }, unreplayable)).toEqual({ kind: 'quarantine' });
      expect(when({ kind: 'recover' }, refusedWrite)).toEqual({ kind: 'quarantine' });
    });
  });

  it('D3 transient: a lost race, a lock or the connection; not what PostgreSQL or the domain refuses', () => {
    expect([new JournalConflict('x'), lockNotGranted, connectionRefused].map(isTransient)).toEqual([
      true,
      true,
      true,
    ]);
    expect(isTransient(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect([refusedWrite, domainBug, unreplayable].map(isTransient)).toEqual([false, false, false]);
    expect(isTransient(partial(lockNotGranted))).toBe(true);
    expect(isTransient(partial(unreplayable))).toBe(false);
  });
});
