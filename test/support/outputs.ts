import {
  type Conversation,
  deriveSessionId,
  outputId,
  type Person,
  standardOptions,
  type TextOutput,
  type ToolInteractionRejected,
  type ToolInteractionRequest,
  type ToolInteractionResolved,
  type ToolInteractionUpdate,
} from '@tollgate/protocol';
import { alice } from './commands';

/** Outputs as the session service would publish them, for driving a binding directly. */

const envelope = (conversation: Conversation, seq: number) => {
  const sessionId = deriveSessionId(conversation);
  return {
    v: 1 as const,
    id: outputId(sessionId, seq, 0),
    sessionId,
    conversation,
    occurredAt: new Date().toISOString(),
    seq,
  };
};

export function requestOutput(
  conversation: Conversation,
  callId: string,
  seq: number,
  overrides: Partial<
    Pick<ToolInteractionRequest, 'toolName' | 'displayText' | 'requester' | 'options' | 'principal'>
  > = {},
): ToolInteractionRequest {
  return {
    type: 'ToolInteractionRequest',
    ...envelope(conversation, seq),
    callId,
    batchId: `batch_${seq}`,
    toolName: 'write_note',
    displayText: `Write a note: "${callId}"`,
    requester: alice,
    principal: 'user',
    options: standardOptions(),
    ...overrides,
  };
}

export function updateOutput(
  request: ToolInteractionRequest,
  status: ToolInteractionUpdate['status'],
  seq: number,
): ToolInteractionUpdate {
  const reason =
    status === 'Abandoned'
      ? 'superseded by a newer message'
      : status === 'Expired'
        ? 'this request has expired'
        : 'the service restarted; this request is still valid';
  return {
    type: 'ToolInteractionUpdate',
    ...envelope(request.conversation, seq),
    callId: request.callId,
    status,
    reason,
    ...(status === 'RefreshedAfterRestart' ? { request } : {}),
  };
}

export function resolvedOutput(
  request: ToolInteractionRequest,
  seq: number,
  resolvedBy: Person = alice,
  optionKey: 'approve_once' | 'deny' = 'approve_once',
): ToolInteractionResolved {
  return {
    type: 'ToolInteractionResolved',
    ...envelope(request.conversation, seq),
    callId: request.callId,
    optionKey,
    label: optionKey === 'deny' ? 'Deny' : 'Approve once',
    resolvedBy,
  };
}

export function rejectedOutput(
  request: ToolInteractionRequest,
  seq: number,
  sender: Person,
  reason: ToolInteractionRejected['reason'] = 'wrong_requester',
): ToolInteractionRejected {
  return {
    type: 'ToolInteractionRejected',
    ...envelope(request.conversation, seq),
    callId: request.callId,
    sender,
    reason,
    text: 'Only the person who asked can answer this request.',
  };
}

export function textOutput(conversation: Conversation, seq: number, text: string): TextOutput {
  return { type: 'TextOutput', ...envelope(conversation, seq), text, role: 'assistant' };
}
