import { platformOfSessionId } from '@tollgate/protocol';
import { queryPrepared } from '@tollgate/persistence';
import type { EntityManager } from 'typeorm';

/** Command ids are unique per platform only; the session id names it (`<platform>-…`). */
export function platformOf(sessionId: string): string {
  return platformOfSessionId(sessionId) ?? sessionId;
}

/** Whether `processed_commands` already holds the command (it was decided once). */
export async function isProcessed(
  manager: EntityManager,
  sessionId: string,
  commandId: string,
): Promise<boolean> {
  const seen = await manager.query<unknown[]>(
    `SELECT 1 FROM processed_commands WHERE platform = $1 AND command_id = $2`,
    [platformOf(sessionId), commandId],
  );
  return seen.length > 0;
}

/**
 * With a decision's first commit: a redelivery after a crash mid-decision is a duplicate, and
 * recovery, not the command, settles the turn left in flight.
 */
export async function recordProcessed(
  manager: EntityManager,
  sessionId: string,
  commandId: string,
): Promise<void> {
  await queryPrepared(
    manager,
    'tollgate_command_processed',
    `INSERT INTO processed_commands (platform, command_id, session_id) VALUES ($1, $2, $3)`,
    [platformOf(sessionId), commandId, sessionId],
  );
}
