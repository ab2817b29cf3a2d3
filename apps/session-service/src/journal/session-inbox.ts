import { fromJsonbValue, toJsonbText } from '@tollgate/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { SessionCommand, SubAgentCommand } from '../session/domain/sub-agent';
import { isProcessed, platformOf } from './command-ledger';

export interface InboxEntry {
  readonly position: string;
  readonly sessionId: string;
  readonly command: SessionCommand;
}

/** `session_inbox`: commands a busy session decides later, kept across a crash. */
export class SessionInbox {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Keeps a command its busy session will decide later. Its message can then be acked: the
   * row survives a crash, and the command ledger or the row's key turn a redelivery away.
   */
  async queue(
    command: SessionCommand,
  ): Promise<{ kind: 'queued'; position: string } | { kind: 'duplicate' }> {
    return this.dataSource.transaction(async (manager) => {
      if (await isProcessed(manager, command.sessionId, command.id)) return { kind: 'duplicate' };
      const [inserted] = await manager.query<{ position: string }[]>(
        `INSERT INTO session_inbox (session_id, command_id, command) VALUES ($1, $2, $3)
         ON CONFLICT (session_id, command_id) DO NOTHING RETURNING position`,
        // Chat text may hold U+0000 or lone surrogates: see toJsonbText.
        [command.sessionId, command.id, toJsonbText(command)],
      );
      return inserted ? { kind: 'queued', position: inserted.position } : { kind: 'duplicate' };
    });
  }

  /** Every queued command, oldest first (what a new process must still decide). */
  async entries(): Promise<InboxEntry[]> {
    const rows = await this.dataSource.query<
      { position: string; session_id: string; command: SessionCommand }[]
    >(
      `SELECT i.position, i.session_id, i.command FROM session_inbox i
       WHERE NOT EXISTS (SELECT 1 FROM quarantined_sessions q WHERE q.session_id = i.session_id)
       ORDER BY i.position`,
    );
    return rows.map((r) => ({
      position: r.position,
      sessionId: r.session_id,
      command: fromJsonbValue<SessionCommand>(r.command),
    }));
  }

  /** Drops a queued command that can never be decided (it was dead-lettered instead). */
  async drop(position: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM session_inbox WHERE position = $1`, [position]);
  }
}

/** The queued command a decision took from the inbox goes with the decision's first commit. */
export async function settleQueued(
  manager: EntityManager,
  position: string | undefined,
): Promise<void> {
  if (position === undefined) return;
  await manager.query(`DELETE FROM session_inbox WHERE position = $1`, [position]);
}

/**
 * Queues commands for other sessions in the caller's transaction. A command already queued,
 * or already decided, is not queued again.
 */
export async function dispatchCommands(
  manager: EntityManager,
  commands: readonly SubAgentCommand[],
): Promise<InboxEntry[]> {
  const entries: InboxEntry[] = [];
  for (const command of commands) {
    const [inserted] = await manager.query<{ position: string }[]>(
      `INSERT INTO session_inbox (session_id, command_id, command)
       SELECT $1, $2, $3
       WHERE NOT EXISTS (SELECT 1 FROM processed_commands WHERE platform = $4 AND command_id = $2)
       ON CONFLICT (session_id, command_id) DO NOTHING RETURNING position`,
      [command.sessionId, command.id, toJsonbText(command), platformOf(command.sessionId)],
    );
    if (inserted)
      entries.push({ position: inserted.position, sessionId: command.sessionId, command });
  }
  return entries;
}
