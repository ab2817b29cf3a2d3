import { pooledQuery } from '@tollgate/persistence';
import type { Conversation } from '@tollgate/protocol';
import type { DataSourceAccess } from './data-source-access';
import type { KnownSessions } from './known-sessions.port';

/**
 * Every output remembers its session, so most calls find it remembered already; rows are never
 * removed, so a session this process wrote once needs no second round trip. Bounded, and
 * simply forgotten when full: forgetting costs one idempotent insert.
 */
const REMEMBERED_MAX = 10_000;

/** {@link KnownSessions} in the binding's schema. */
export class KnownSessionsRepository implements KnownSessions {
  private readonly remembered = new Set<string>();

  constructor(private readonly db: DataSourceAccess) {}

  async remember(sessionId: string, conversation: Conversation): Promise<void> {
    if (this.remembered.has(sessionId)) return;
    const dataSource = await this.db();
    // Prepared on the pool: a post to a new session makes it (pooledQuery, queryPrepared).
    await pooledQuery(dataSource)(
      `INSERT INTO known_sessions (session_id, conversation) VALUES ($1, $2)
       ON CONFLICT (session_id) DO NOTHING`,
      [sessionId, JSON.stringify(conversation)],
      'tollgate_known_session',
    );
    if (this.remembered.size >= REMEMBERED_MAX) this.remembered.clear();
    this.remembered.add(sessionId);
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
