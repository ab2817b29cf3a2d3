import { randomUUID } from 'node:crypto';
import {
  type Conversation,
  deriveSessionId,
  deriveSubAgentSessionId,
  type JoinSession,
  type Person,
  type Platform,
  type ToolInteractionResponse,
  type ToolInteractionUndeliverable,
  undeliverableCommandId,
  type UserMessage,
} from '@tollgate/protocol';
import { uniqueToken } from './unique';

/** A conversation no other test uses, so its session id is fresh. */
export function freshConversation(platform: Platform = 'slack'): Conversation {
  return {
    platform,
    workspaceId: 'T1',
    channelId: `C${uniqueToken('c')}`,
    threadId: platform === 'discord' ? '' : `${Date.now()}.000100`,
  };
}

const envelope = (conversation: Conversation, id?: string) => ({
  v: 1 as const,
  id: id ?? randomUUID(),
  sessionId: deriveSessionId(conversation),
  conversation,
  occurredAt: new Date().toISOString(),
});

export const alice: Person = { id: 'U_ALICE', displayName: 'Alice' };
export const bob: Person = { id: 'U_BOB', displayName: 'Bob' };

export function userMessage(
  conversation: Conversation,
  text: string,
  options: { sender?: Person; id?: string; principal?: 'user' | 'automation' } = {},
): UserMessage {
  return {
    type: 'UserMessage',
    ...envelope(conversation, options.id),
    sender: options.sender ?? alice,
    text,
    ...(options.principal ? { principal: options.principal } : {}),
  };
}

export function response(
  conversation: Conversation,
  callId: string,
  optionKey: string,
  options: { sender?: Person; id?: string } = {},
): ToolInteractionResponse {
  return {
    type: 'ToolInteractionResponse',
    ...envelope(conversation, options.id),
    callId,
    optionKey,
    sender: options.sender ?? alice,
  };
}

export function join(conversation: Conversation): JoinSession {
  return { type: 'JoinSession', ...envelope(conversation) };
}

/** A binding giving up on a Request (docs/protocol.md §4); its id derives from the Request's. */
export function undeliverable(
  conversation: Conversation,
  callId: string,
  requestOutputId: string,
  reason = 'channel_not_found',
): ToolInteractionUndeliverable {
  return {
    type: 'ToolInteractionUndeliverable',
    ...envelope(conversation, undeliverableCommandId(requestOutputId)),
    callId,
    reason,
  };
}

/** A click on a sub-agent's prompt: its session is the child's, and it names the agent. */
export function subAgentResponse(
  conversation: Conversation,
  agent: { name: string; parentCallId: string },
  callId: string,
  optionKey: string,
  options: { sender?: Person; id?: string } = {},
): ToolInteractionResponse {
  const parent = deriveSessionId(conversation);
  return {
    ...response(conversation, callId, optionKey, options),
    sessionId: deriveSubAgentSessionId(parent, agent.parentCallId),
    agent,
  };
}
