import type { Person } from '@tollgate/protocol';
import { toJsonbText } from '@tollgate/persistence';
import type { EntityManager } from 'typeorm';
import type { SessionEvent } from '../session/domain/session-event';
import type { SessionState } from '../session/domain/session-state';
import { workspaceKey } from './workspace-key';

export interface AlwaysGrant {
  readonly workspaceKey: string;
  readonly toolName: string;
  readonly grantedBy: Person;
  readonly sessionId: string;
}

/**
 * The "Always allow" answers among a decision's events. `session` is the state after the
 * decision: its `requested` map names the tool of every call an approver answered.
 */
export function alwaysGrantsIn(
  session: SessionState,
  events: readonly SessionEvent[],
): AlwaysGrant[] {
  const conversation = session.conversation;
  if (!conversation) return [];
  return events.flatMap((event): AlwaysGrant[] => {
    if (event.type !== 'ToolApprovalResolved') return [];
    if (event.optionKey !== 'approve_always' || !event.approved) return [];
    const call = session.requested[event.callId];
    if (!call) return [];
    return [
      {
        workspaceKey: workspaceKey(conversation),
        toolName: call.request.toolName,
        grantedBy: event.resolvedBy,
        sessionId: session.sessionId,
      },
    ];
  });
}

/**
 * Writes the decision's "Always allow" answers to `tool_grants`, inside the transaction that
 * journals them, so a grant exists exactly when its answer does. A later grant for the same
 * workspace and tool replaces the earlier one's who and when; the journal keeps every answer.
 */
export async function projectAlwaysGrants(
  manager: EntityManager,
  session: SessionState,
  events: readonly SessionEvent[],
): Promise<void> {
  // One row per workspace and tool: a statement may not upsert the same row twice.
  const grants = [
    ...new Map(
      alwaysGrantsIn(session, events).map((g) => [`${g.workspaceKey}\n${g.toolName}`, g]),
    ).values(),
  ];
  if (grants.length === 0) return;
  await manager.query(
    `INSERT INTO tool_grants (workspace_key, tool_name, granted_by, session_id)
     SELECT g.workspace_key, g.tool_name, g.granted_by, g.session_id
     FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::text[])
       AS g(workspace_key, tool_name, granted_by, session_id)
     ON CONFLICT (workspace_key, tool_name) DO UPDATE
       SET granted_by = EXCLUDED.granted_by,
           session_id = EXCLUDED.session_id,
           granted_at = now()`,
    [
      grants.map((g) => g.workspaceKey),
      grants.map((g) => g.toolName),
      grants.map((g) => toJsonbText(g.grantedBy)),
      grants.map((g) => g.sessionId),
    ],
  );
}
