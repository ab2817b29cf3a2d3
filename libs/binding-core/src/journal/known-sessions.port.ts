import type { Conversation } from '@tollgate/protocol';

/** Sessions this binding forwarded a message for or saw an output of. */
export interface KnownSessions {
  remember(sessionId: string, conversation: Conversation): Promise<void>;
  has(sessionId: string): Promise<boolean>;
}
