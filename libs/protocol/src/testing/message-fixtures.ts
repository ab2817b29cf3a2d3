import type {
  JoinSession,
  ToolInteractionResponse,
  ToolInteractionUndeliverable,
  UserMessage,
} from '../commands.schema';
import type { Conversation } from '../conversation.schema';
import type {
  TextOutput,
  ToolInteractionRejected,
  ToolInteractionRequest,
  ToolInteractionResolved,
  ToolInteractionUpdate,
} from '../outputs.schema';
import { deriveSessionId } from '../session-id';

/** Valid messages for specs; each spec breaks one thing at a time. */

export const conversation: Conversation = {
  platform: 'slack',
  workspaceId: 'T0001',
  channelId: 'C0001',
  threadId: '1700000000.000100',
};

export const sessionId = deriveSessionId(conversation);

const occurredAt = '2024-05-01T12:00:00.000Z';

export function aUserMessage(overrides: Partial<UserMessage> = {}): UserMessage {
  return {
    type: 'UserMessage',
    v: 1,
    id: 'Ev0001',
    sessionId,
    conversation,
    occurredAt,
    sender: { id: 'U0001', displayName: 'Ada' },
    text: 'hello',
    ...overrides,
  };
}

export function aJoinSession(overrides: Partial<JoinSession> = {}): JoinSession {
  return {
    type: 'JoinSession',
    v: 1,
    id: 'join-1',
    sessionId,
    conversation,
    occurredAt,
    ...overrides,
  };
}

export function aResponse(
  overrides: Partial<ToolInteractionResponse> = {},
): ToolInteractionResponse {
  return {
    type: 'ToolInteractionResponse',
    v: 1,
    id: '1700000001.000200:U0002',
    sessionId,
    conversation,
    occurredAt,
    callId: 'call_3_1',
    optionKey: 'approve_once',
    sender: { id: 'U0002' },
    ...overrides,
  };
}

export function anUndeliverable(
  overrides: Partial<ToolInteractionUndeliverable> = {},
): ToolInteractionUndeliverable {
  return {
    type: 'ToolInteractionUndeliverable',
    v: 1,
    id: `undeliverable:${sessionId}:3:0`,
    sessionId,
    conversation,
    occurredAt,
    callId: 'call_3_1',
    reason: 'channel_not_found',
    ...overrides,
  };
}

export function aRequest(overrides: Partial<ToolInteractionRequest> = {}): ToolInteractionRequest {
  return {
    type: 'ToolInteractionRequest',
    v: 1,
    id: `${sessionId}:3:0`,
    sessionId,
    conversation,
    occurredAt,
    seq: 3,
    callId: 'call_3_1',
    batchId: 'batch-3',
    toolName: 'write_note',
    displayText: 'write_note {"text":"hi"}',
    requester: { id: 'U0001', displayName: 'Ada' },
    principal: 'user',
    options: [
      { key: 'approve_once', label: 'Approve once', style: 'primary' },
      { key: 'deny', label: 'Deny', style: 'danger' },
    ],
    ...overrides,
  };
}

export function anUpdate(overrides: Partial<ToolInteractionUpdate> = {}): ToolInteractionUpdate {
  return {
    type: 'ToolInteractionUpdate',
    v: 1,
    id: `${sessionId}:7:0`,
    sessionId,
    conversation,
    occurredAt,
    seq: 7,
    callId: 'call_3_1',
    status: 'RefreshedAfterRestart',
    request: aRequest(),
    ...overrides,
  };
}

export function aResolved(
  overrides: Partial<ToolInteractionResolved> = {},
): ToolInteractionResolved {
  return {
    type: 'ToolInteractionResolved',
    v: 1,
    id: `${sessionId}:8:0`,
    sessionId,
    conversation,
    occurredAt,
    seq: 8,
    callId: 'call_3_1',
    optionKey: 'approve_once',
    label: 'Approve once',
    resolvedBy: { id: 'U0001' },
    ...overrides,
  };
}

export function aRejected(
  overrides: Partial<ToolInteractionRejected> = {},
): ToolInteractionRejected {
  return {
    type: 'ToolInteractionRejected',
    v: 1,
    id: `${sessionId}:0:1700000001.000200:U0002`,
    sessionId,
    conversation,
    occurredAt,
    seq: 0,
    callId: 'call_3_1',
    sender: { id: 'U0002' },
    reason: 'prompt_expired',
    text: 'This prompt has expired.',
    ...overrides,
  };
}

export function aTextOutput(overrides: Partial<TextOutput> = {}): TextOutput {
  return {
    type: 'TextOutput',
    v: 1,
    id: `${sessionId}:4:0`,
    sessionId,
    conversation,
    occurredAt,
    seq: 4,
    text: 'You said: hello',
    role: 'assistant',
    ...overrides,
  };
}

/** A copy of `message` without `field`, for "missing field" cases. */
export function without(message: object, field: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...message };
  delete copy[field];
  return copy;
}
