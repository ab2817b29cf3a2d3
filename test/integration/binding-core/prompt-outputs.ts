import { promptRefOf, type PromptKey } from '@tollgate/binding-core';
import {
  type Conversation,
  deriveSessionId,
  type Person,
  type TextOutput,
  type ToolInteractionRejected,
  type ToolInteractionRequest,
  type ToolInteractionResolved,
  type ToolInteractionUpdate,
} from '@tollgate/protocol';
import { alice, bob, freshConversation } from '../../support/commands';

/**
 * Outputs about one prompt in a conversation no other test uses, built as the session service
 * would publish them: ids `<sessionId>:<seq>:<n>`, seq the causing event's.
 */
export function promptOutputs(
  callId = 'call_3_1',
  conversation: Conversation = freshConversation(),
  /** An approval API prompt (A2): its agent session and its approvers. */
  api?: { readonly sessionId: string; readonly approvers: readonly Person[] },
) {
  const sessionId = api?.sessionId ?? deriveSessionId(conversation);
  const key: PromptKey = { sessionId, callId };
  const occurredAt = new Date().toISOString();
  const envelope = (seq: number, n = 0) => ({
    v: 1 as const,
    id: `${sessionId}:${seq}:${n}`,
    sessionId,
    conversation,
    occurredAt,
    seq,
  });

  const request = (seq = 3): ToolInteractionRequest => ({
    type: 'ToolInteractionRequest',
    ...envelope(seq),
    callId,
    batchId: `batch-${seq}`,
    toolName: 'write_note',
    displayText: 'write_note {"text":"buy milk"}',
    requester: api?.approvers[0] ?? alice,
    ...(api ? { approvers: [...api.approvers] } : {}),
    principal: 'user',
    options: [
      { key: 'approve_once', label: 'Approve once', style: 'primary' },
      { key: 'deny', label: 'Deny', style: 'danger' },
    ],
  });

  return {
    sessionId,
    conversation,
    callId,
    key,
    promptRef: promptRefOf(key),
    request,
    refreshed: (seq: number, original = request()): ToolInteractionUpdate => ({
      type: 'ToolInteractionUpdate',
      ...envelope(seq),
      callId,
      status: 'RefreshedAfterRestart',
      request: original,
    }),
    abandoned: (seq: number, reason = 'a newer message superseded it'): ToolInteractionUpdate => ({
      type: 'ToolInteractionUpdate',
      ...envelope(seq),
      callId,
      status: 'Abandoned',
      reason,
    }),
    expired: (seq: number): ToolInteractionUpdate => ({
      type: 'ToolInteractionUpdate',
      ...envelope(seq),
      callId,
      status: 'Expired',
    }),
    resolved: (seq: number, resolvedBy: Person = alice): ToolInteractionResolved => ({
      type: 'ToolInteractionResolved',
      ...envelope(seq),
      callId,
      optionKey: 'approve_once',
      label: 'Approve once',
      resolvedBy,
    }),
    rejected: (commandId: string, sender: Person = bob): ToolInteractionRejected => ({
      type: 'ToolInteractionRejected',
      ...envelope(0),
      id: `${sessionId}:0:${commandId}`,
      callId,
      sender,
      reason: 'wrong_requester',
      text: 'Only Alice can answer this prompt.',
    }),
    text: (seq: number, text = 'write_note: 1'): TextOutput => ({
      type: 'TextOutput',
      ...envelope(seq),
      text,
      role: 'assistant',
    }),
  };
}
