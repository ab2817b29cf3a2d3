import type { Conversation } from '@tollgate/protocol';
import type { AlwaysGrantInForce, GrantConnection } from '@tollgate/session-read-model';

export type { AlwaysGrantInForce, GrantConnection };

/**
 * "Always allow" grants, kept beyond any one session (the `tool_grants` table, a projection
 * of journaled approve_always answers). A grant belongs to the person who gave it: it covers
 * that person, that tool, that platform and that workspace, never anyone else (docs/protocol.md §4).
 */
export interface ToolGrants {
  /**
   * `clientId` names an approval API client (A2): its grants cover only its own requests, and
   * the chat's (`''`, the default) only the chat's turns. Every read takes the connection of
   * the decision it serves (D2: a decision holds at most one pooled connection).
   */
  isAlwaysAllowed(
    conversation: Conversation,
    personId: string,
    toolName: string,
    clientId?: string,
    connection?: GrantConnection,
  ): Promise<boolean>;
  /**
   * X14: whether an "Allow in this chat" the journal holds is still in force at `now`: not
   * lapsed (TOLLGATE_SESSION_GRANT_TTL) and not revoked by an operator. A port that keeps no
   * such record (a test's) leaves the journal's word standing.
   */
  isSessionGrantInForce?(
    sessionId: string,
    personId: string,
    toolName: string,
    now: Date,
    connection?: GrantConnection,
  ): Promise<boolean>;
  /**
   * G3: the person's "Always allow" for the tool in force at `now` (not revoked, not lapsed,
   * uses left), read from the database at each decision so a lapse or a last use on any
   * replica counts at once. Its scope is checked by the caller. Absent, `isAlwaysAllowed`
   * answers as a blanket grant.
   */
  alwaysGrant?(
    conversation: Conversation,
    personId: string,
    toolName: string,
    now: Date,
    connection?: GrantConnection,
    /** An approval API client's grants (`''`, the default: the chat's). */
    clientId?: string,
  ): Promise<AlwaysGrantInForce | undefined>;
}

/** One use of a limited grant, taken in the transaction that journals the call it covers. */
export interface GrantClaim {
  readonly platform: string;
  readonly workspaceId: string;
  readonly personId: string;
  readonly toolName: string;
  readonly grantedAt: string;
  readonly now: string;
  /** An approval API client's grant (G3, 2026-12-01 (f)); absent: the chat's (`''`). */
  readonly clientId?: string;
}

export const noToolGrants: ToolGrants = { isAlwaysAllowed: async () => false };

export const TOOL_GRANTS = Symbol('TOOL_GRANTS');
