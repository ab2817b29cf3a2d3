import { toJsonbText } from '@tollgate/persistence';
import type { EntityManager } from 'typeorm';
import { type JournaledEvent, ownEntry, type SessionState } from '@tollgate/session-read-model';

/**
 * Writes the decision's "Allow in this chat" answers to `session_grants`, inside the
 * transaction that journals them (X14): the grant lapses `ttlMs` after the answer, and an
 * operator's revocation yields only to an answer given after it, as `tool_grants` does.
 */
export async function projectSessionGrants(
  manager: EntityManager,
  session: SessionState,
  events: readonly JournaledEvent[],
  ttlMs: number,
): Promise<void> {
  const conversation = session.conversation;
  if (!conversation) return;
  const grants = new Map<string, readonly string[]>();
  for (const { event, occurredAt } of events) {
    if (event.type !== 'ToolApprovalResolved') continue;
    if (event.optionKey !== 'approve_session' || !event.approved) continue;
    const call = ownEntry(session.requested, event.callId);
    if (!call) continue;
    const expiresAt = new Date(Date.parse(occurredAt) + ttlMs).toISOString();
    const row = [
      event.resolvedBy.id,
      call.request.toolName,
      toJsonbText(event.resolvedBy),
      occurredAt,
      expiresAt,
    ];
    // One row per key: a statement may not upsert the same row twice.
    grants.set(JSON.stringify([event.resolvedBy.id, call.request.toolName]), row);
  }
  if (grants.size === 0) return;
  const rows = [...grants.values()];
  await manager.query(
    `INSERT INTO session_grants
       (session_id, platform, workspace_id, conversation,
        person_id, tool_name, granted_by, granted_at, expires_at)
     SELECT $1, $2, $3, $4::jsonb, person, tool, granted_by, granted_at, expires_at
       FROM unnest($5::text[], $6::text[], $7::jsonb[], $8::timestamptz[], $9::timestamptz[])
         AS t(person, tool, granted_by, granted_at, expires_at)
     ON CONFLICT (session_id, person_id, tool_name) DO UPDATE
       SET granted_by = EXCLUDED.granted_by,
           granted_at = EXCLUDED.granted_at,
           expires_at = EXCLUDED.expires_at,
           end_audited_at = NULL,
           revoked_at = NULL
       WHERE session_grants.revoked_at IS NULL OR session_grants.revoked_at < EXCLUDED.granted_at`,
    [
      session.sessionId,
      conversation.platform,
      conversation.workspaceId,
      toJsonbText(conversation),
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
      rows.map((r) => r[2]),
      rows.map((r) => r[3]),
      rows.map((r) => r[4]),
    ],
  );
}
