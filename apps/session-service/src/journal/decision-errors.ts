export type DecisionResult =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'quarantined' }
  | { readonly kind: 'decided'; readonly events: number; readonly outputs: number };

/**
 * A decision failed after at least one of its checkpoints committed: part of it (and the
 * command ledger row) is durable, the rest is lost. Retrying the command cannot help (it is a
 * duplicate now); the scheduler settles the turn left in flight instead.
 */
export class PartiallyCommittedDecision extends Error {
  override readonly name = 'PartiallyCommittedDecision';

  constructor(
    readonly sessionId: string,
    options: { cause: unknown },
  ) {
    super(`a decision for ${sessionId} failed after a checkpoint committed`, options);
  }
}

/** Optimistic concurrency lost: another writer appended to the session first. */
export class JournalConflict extends Error {
  override readonly name = 'JournalConflict';
}

/** The session's journal cannot be replayed by this version: it must be quarantined. */
export class SessionUnreplayable extends Error {
  override readonly name = 'SessionUnreplayable';

  constructor(
    readonly sessionId: string,
    cause: unknown,
  ) {
    super(
      `session ${sessionId} cannot be replayed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
