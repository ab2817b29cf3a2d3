import type { GrantRead, ReadGrant } from './domain/grant-read';
import type { SessionRecorder } from './domain/session-recorder';
import type { ToolGrants } from './domain/tool-grants.port';

/**
 * The shell runs a `ReadGrant` on the decision's own connection (D2). An "Always allow" is
 * read only when no session grant in force already covers the call.
 */
export function performReadGrant(
  effect: ReadGrant,
  grants: ToolGrants,
  recorder: SessionRecorder,
): Promise<GrantRead> {
  const { call, personId, conversation } = effect;
  const now = new Date(effect.now);
  return recorder.readThrough(async (connection): Promise<GrantRead> => {
    let sessionInForce: boolean | undefined;
    if (effect.session) {
      sessionInForce = await grants.isSessionGrantInForce?.(
        effect.session.sessionId,
        personId,
        call.toolName,
        now,
        connection,
      );
      if (sessionInForce ?? true) return sessionInForce === undefined ? {} : { sessionInForce };
    }
    const session = sessionInForce === undefined ? {} : { sessionInForce };
    if (!conversation) return session;
    if (!grants.alwaysGrant) {
      const blanket = await grants.isAlwaysAllowed(
        conversation,
        personId,
        call.toolName,
        '',
        connection,
      );
      return { ...session, ...(blanket ? { always: 'blanket' as const } : {}) };
    }
    const always = await grants.alwaysGrant(conversation, personId, call.toolName, now, connection);
    return { ...session, ...(always ? { always } : {}) };
  });
}
