import { classifyDatabaseError } from '@tollgate/persistence';
import {
  JournalConflict,
  PartiallyCommittedDecision,
  SessionUnreplayable,
} from '../journal/session-store';

/** Where a failure struck: the scheduler's four kinds of work, and whether any of it committed. */
export type FailedWork =
  /** A command decided at once; `durable`: its first commit landed and its message was acked. */
  | { readonly kind: 'direct'; readonly durable: boolean }
  /** A command decided from its inbox row (its message was acked when it was queued). */
  | { readonly kind: 'queued'; readonly durable: boolean }
  /** S22: a prompt timer, carrying its own ledger key. */
  | { readonly kind: 'timer' }
  /** Recovering a turn from the journal. */
  | { readonly kind: 'recover' };

/** What the scheduler does about it, decided without I/O. */
export type FailureRoute =
  /** Nothing committed: the command's message is naked (or dead-lettered) and redelivered. */
  | { readonly kind: 'reject' }
  /**
   * The session's journal cannot be replayed: set it aside (S18). A direct command is then
   * rejected too (its message dead-lettered by the consumer); a timer counts as settled.
   */
  | { readonly kind: 'quarantine' }
  /** Part of it committed and the failure may pass: recover from the journal, with a growing delay. */
  | { readonly kind: 'recover' }
  /**
   * Part of it committed and it would fail the same way again: end the turn with a notice,
   * and (for a command) dead-letter a copy for an operator (X8).
   */
  | { readonly kind: 'end_turn'; readonly deadLetter: boolean }
  /** Nothing committed and the failure may pass: try it again after a growing delay. */
  | { readonly kind: 'retry' }
  /** Nothing committed, acked already, and it can never be decided: dead-letter it ourselves. */
  | { readonly kind: 'dead_letter'; readonly reason: string };

/**
 * The scheduler's failure routing as one table (S14–S18, S22, X8):
 *
 * | work         | unreplayable          | partial commit, transient | partial commit, permanent | nothing committed, transient | nothing committed, permanent |
 * |--------------|-----------------------|---------------------------|---------------------------|------------------------------|------------------------------|
 * | direct       | quarantine, reject    | recover                   | end_turn + dead-letter    | reject                       | reject                       |
 * | queued       | quarantine            | recover                   | end_turn + dead-letter    | retry                        | dead_letter                  |
 * | timer        | quarantine            | recover                   | end_turn                  | reject                       | reject                       |
 * | recover      | quarantine            | —                         | —                         | retry                        | quarantine                   |
 *
 * A timer's partial commit is a PartiallyCommittedDecision (its ledger row committed); a
 * command's is known from its durable flag. An unreplayable session after a command's partial
 * commit is that command's permanent failure, as before.
 */
export function routeFailure(work: FailedWork, error: unknown): FailureRoute {
  switch (work.kind) {
    case 'direct':
      if (work.durable) return afterPartialCommit(error, true);
      return error instanceof SessionUnreplayable ? { kind: 'quarantine' } : { kind: 'reject' };
    case 'queued':
      if (work.durable) return afterPartialCommit(error, true);
      if (error instanceof SessionUnreplayable) return { kind: 'quarantine' };
      return isTransient(error)
        ? { kind: 'retry' }
        : { kind: 'dead_letter', reason: reasonOf(error) };
    case 'timer':
      if (error instanceof PartiallyCommittedDecision) return afterPartialCommit(error, false);
      return error instanceof SessionUnreplayable ? { kind: 'quarantine' } : { kind: 'reject' };
    case 'recover':
      return isTransient(error) ? { kind: 'retry' } : { kind: 'quarantine' };
  }
}

function afterPartialCommit(error: unknown, deadLetter: boolean): FailureRoute {
  const cause = error instanceof PartiallyCommittedDecision ? error.cause : error;
  return isTransient(cause) ? { kind: 'recover' } : { kind: 'end_turn', deadLetter };
}

/**
 * Worth retrying: the database away, a timeout, a lock not granted, a lost write race. What
 * PostgreSQL refuses every time (classifyDatabaseError) and anything the domain threw will
 * fail the same way again.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof JournalConflict) return true;
  if (error instanceof PartiallyCommittedDecision) return isTransient(error.cause);
  if (error instanceof SessionUnreplayable) return false;
  const database = classifyDatabaseError(error);
  if (database) return database.kind === 'transient';
  // No SQLSTATE: the connection itself (refused, reset, terminated, timed out).
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /connection|terminat|timeout|ECONN/i.test(message);
}

/** A failure as a reason an operator reads. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
