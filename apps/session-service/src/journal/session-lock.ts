import { queryPrepared } from '@tollgate/persistence';
import type { EntityManager } from 'typeorm';

/** Advisory-lock class of "one writer at a time per session" (second key: hash of the id). */
const SESSION_LOCK_CLASS = 0x7017;

/** Holds the session's write lock until the caller's transaction ends. */
export async function lockSession(manager: EntityManager, sessionId: string): Promise<void> {
  // Prepared, like every statement of a decision (queryPrepared).
  await queryPrepared(
    manager,
    'tollgate_session_lock',
    `SELECT pg_advisory_xact_lock($1, hashtext($2))`,
    [SESSION_LOCK_CLASS, sessionId],
  );
}

/** Locks many sessions at once, in a fixed order so two callers cannot deadlock. */
export async function lockSessions(
  manager: EntityManager,
  sessionIds: readonly string[],
): Promise<void> {
  await manager.query(
    `SELECT pg_advisory_xact_lock($1, hashtext(id)) FROM unnest($2::text[]) AS id ORDER BY id`,
    [SESSION_LOCK_CLASS, sessionIds],
  );
}
