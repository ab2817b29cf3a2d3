import type { Conversation } from '@tollgate/protocol';

/**
 * "Always allow" grants: for a workspace and a tool, kept beyond any one session (the
 * `tool_grants` table, a projection of journaled approve_always answers).
 */
export interface ToolGrants {
  isAlwaysAllowed(conversation: Conversation, toolName: string): Promise<boolean>;
}

export const noToolGrants: ToolGrants = { isAlwaysAllowed: async () => false };

export const TOOL_GRANTS = Symbol('TOOL_GRANTS');
