import type { Person } from '@tollgate/protocol';
import { toJsonbText } from '@tollgate/persistence';
import type { EntityManager } from 'typeorm';
import {
  type JournaledEvent,
  type JournaledGrantOffer,
  ownEntry,
  type SessionState,
} from '@tollgate/session-read-model';

/** One person's "Always allow" for one tool on one platform and workspace. */
export interface AlwaysGrant {
  readonly platform: string;
  /** `""` where the platform has none (Discord DMs): the person key keeps DMs apart. */
  readonly workspaceId: string;
  readonly personId: string;
  readonly toolName: string;
  /** `''` for a grant given in chat; the approval API client's id for one given on its prompt. */
  readonly clientId: string;
  readonly grantedBy: Person;
  readonly sessionId: string;
  /** When the answer was journaled: a revocation only yields to an answer given after it. */
  readonly grantedAt: string;
  /** G3: what the prompt's "Always allow" offered; absent, the tool for ever. */
  readonly offer?: JournaledGrantOffer;
}

/**
 * The "Always allow" answers among a decision's events, each a grant for the person who
 * gave it. `session` is the state after the decision: its `requested` map names the tool of
 * every call an approver answered.
 */
export function alwaysGrantsIn(
  session: SessionState,
  events: readonly JournaledEvent[],
): AlwaysGrant[] {
  const conversation = session.conversation;
  if (!conversation) return [];
  return events.flatMap(({ event, occurredAt }): AlwaysGrant[] => {
    if (event.type === 'ApiApprovalDecided') {
      // A2: the approver's grant for this client and tool only, where the prompt was.
      const { decision } = event;
      if (decision?.option !== 'approve_always' || decision.via === 'grant') return [];
      return [
        {
          platform: event.conversation.platform,
          workspaceId: event.conversation.workspaceId,
          personId: decision.by.id,
          toolName: event.tool,
          clientId: event.clientId,
          grantedBy: {
            id: decision.by.id,
            ...(decision.by.displayName === undefined
              ? {}
              : { displayName: decision.by.displayName }),
          },
          sessionId: session.sessionId,
          grantedAt: occurredAt,
          // G3: the scope, lifetime and uses the request offered and the approver saw.
          ...(event.grantOffer ? { offer: event.grantOffer } : {}),
        },
      ];
    }
    if (event.type !== 'ToolApprovalResolved') return [];
    if (event.optionKey !== 'approve_always' || !event.approved) return [];
    const call = ownEntry(session.requested, event.callId);
    if (!call) return [];
    return [
      {
        platform: conversation.platform,
        workspaceId: conversation.workspaceId,
        personId: event.resolvedBy.id,
        toolName: call.request.toolName,
        clientId: '',
        grantedBy: event.resolvedBy,
        sessionId: session.sessionId,
        grantedAt: occurredAt,
        ...(call.grantOffer ? { offer: call.grantOffer } : {}),
      },
    ];
  });
}

/**
 * Writes the decision's "Always allow" answers to `tool_grants`, inside the transaction that
 * journals them, so a grant exists exactly when its answer does. A later answer by the same
 * person for the same tool and workspace replaces the earlier one's when and where; the
 * journal keeps every answer. A revoked grant comes back only through an answer given after
 * the revocation, so replaying old answers can never undo an operator's revoke.
 */
export async function projectAlwaysGrants(
  manager: EntityManager,
  session: SessionState,
  events: readonly JournaledEvent[],
): Promise<void> {
  // One row per key: a statement may not upsert the same row twice.
  const grants = [
    ...new Map(
      alwaysGrantsIn(session, events).map((g) => [
        JSON.stringify([g.platform, g.workspaceId, g.personId, g.toolName, g.clientId]),
        g,
      ]),
    ).values(),
  ];
  if (grants.length === 0) return;
  await manager.query(
    `INSERT INTO tool_grants
       (platform, workspace_id, person_id, tool_name, granted_by, session_id, granted_at,
        client_id, scope, uses_granted, uses_left, expires_at)
     SELECT platform, workspace_id, person_id, tool_name, granted_by, session_id, granted_at,
            client_id, scope, uses, uses, expires_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[],
                   $6::text[], $7::timestamptz[], $8::text[], $9::jsonb[], $10::int[],
                   $11::timestamptz[])
         AS g(platform, workspace_id, person_id, tool_name, granted_by, session_id, granted_at,
              client_id, scope, uses, expires_at)
     ON CONFLICT (platform, workspace_id, person_id, tool_name, client_id) DO UPDATE
       SET granted_by = EXCLUDED.granted_by,
           session_id = EXCLUDED.session_id,
           granted_at = EXCLUDED.granted_at,
           scope = EXCLUDED.scope,
           uses_granted = EXCLUDED.uses_granted,
           uses_left = EXCLUDED.uses_left,
           expires_at = EXCLUDED.expires_at,
           end_audited_at = NULL,
           revoked_at = NULL
       WHERE tool_grants.revoked_at IS NULL OR tool_grants.revoked_at < EXCLUDED.granted_at`,
    [
      grants.map((g) => g.platform),
      grants.map((g) => g.workspaceId),
      grants.map((g) => g.personId),
      grants.map((g) => g.toolName),
      grants.map((g) => toJsonbText(g.grantedBy)),
      grants.map((g) => g.sessionId),
      grants.map((g) => g.grantedAt),
      grants.map((g) => g.clientId),
      grants.map((g) => (g.offer?.scope ? toJsonbText(g.offer.scope) : null)),
      grants.map((g) => g.offer?.uses ?? null),
      // G3: the lifetime counts from the answer, as journaled.
      grants.map((g) =>
        g.offer?.ttlMs === undefined
          ? null
          : new Date(Date.parse(g.grantedAt) + g.offer.ttlMs).toISOString(),
      ),
    ],
  );
}
