import type { QueryRunner } from 'typeorm';
import type { PersistenceLogger } from './persistence.logger';

/**
 * First key of the two-key advisory lock taken while a schema is migrated. PostgreSQL
 * keeps one-key and two-key advisory locks apart, and this class id keeps migration
 * locks apart from any other two-key lock the services take.
 */
export const MIGRATION_LOCK_CLASS_ID = 0x54474d31; // "TGM1"

/**
 * Runs `work` while holding the schema's migration lock on the query runner's own
 * connection (session-level locks belong to a connection). A process that dies while
 * holding it loses its connection and so the lock; nothing has to clean up after it.
 */
export async function withSchemaMigrationLock<T>(
  queryRunner: QueryRunner,
  schema: string,
  logger: PersistenceLogger,
  work: () => Promise<T>,
): Promise<T> {
  const key = [MIGRATION_LOCK_CLASS_ID, schema];
  const [attempt] = (await queryRunner.query(
    'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked',
    key,
  )) as Array<{ locked: boolean }>;
  if (!attempt?.locked) {
    logger.info({ schema }, 'another process is migrating this schema; waiting for it');
    await queryRunner.query('SELECT pg_advisory_lock($1, hashtext($2))', key);
  }
  try {
    return await work();
  } finally {
    // If this fails the connection is broken, which ends the session and the lock with it;
    // the error then propagates and the start fails.
    await queryRunner.query('SELECT pg_advisory_unlock($1, hashtext($2))', key);
  }
}
