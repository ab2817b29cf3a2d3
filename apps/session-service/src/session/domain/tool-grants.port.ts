import type { Conversation } from '@tollgate/protocol';

/**
 * "Always allow" grants, kept beyond any one session (the `tool_grants` table, a projection
 * of journaled approve_always answers). A grant belongs to the person who gave it: it covers
 * that person, that tool, that platform and that workspace, never anyone else (docs/protocol.md §4).
 */
export interface ToolGrants {
  isAlwaysAllowed(conversation: Conversation, personId: string, toolName: string): Promise<boolean>;
}

export const noToolGrants: ToolGrants = { isAlwaysAllowed: async () => false };

export const TOOL_GRANTS = Symbol('TOOL_GRANTS');
