import type { Conversation } from '@tollgate/protocol';
import type { DataSourceAccess } from './data-source-access';
import type { KnownSessions } from './known-sessions.port';

/** {@link KnownSessions} in the binding's schema. */
export class KnownSessionsRepository implements KnownSessions {
  constructor(private readonly db: DataSourceAccess) {}

  async remember(sessionId: string, conversation: Conversation): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      `INSERT INTO known_sessions (session_id, conversation) VALUES ($1, $2)
       ON CONFLICT (session_id) DO NOTHING`,
      [sessionId, JSON.stringify(conversation)],
    );
  }

  async has(sessionId: string): Promise<boolean> {
    const dataSource = await this.db();
    const rows: unknown[] = await dataSource.query(
      `SELECT 1 FROM known_sessions WHERE session_id = $1`,
      [sessionId],
    );
    return rows.length > 0;
  }
}
