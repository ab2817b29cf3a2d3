import { deriveSessionId, type Conversation } from '@tollgate/protocol';
import type { KnownSessions } from '../journal/known-sessions.port';

/**
 * Whether a conversation already has a session this binding knows of: Slack forwards any
 * message in such a thread, not only mentions (docs/protocol.md §1.1).
 */
export class HasSession {
  constructor(private readonly sessions: Pick<KnownSessions, 'has'>) {}

  execute(conversation: Conversation): Promise<boolean> {
    return this.sessions.has(deriveSessionId(conversation));
  }
}
