import {
  argumentsHashOf,
  type JsonObject,
  type Person,
  type Principal,
  type Quorum,
} from '@tollgate/protocol';
import { quorumOf, type ToolCall } from '@tollgate/session-read-model';
import type { QuorumPolicy } from '../../tools/tool-policy';
import { journaledOffer } from '../../tools/grant-offer';
import { PROMPT_TEXT_BUDGET, renderPromptText } from '../../prompt/prompt-text.renderer';
import type { SessionRecorder } from './session-recorder';
import { editableArguments } from './argument-edit.decider';
import { promptTimersAt } from './prompt-timer';
import { sessionTools } from './sub-agent.runner';
import type { TurnConfig } from './turn-effects';
import { lastUserMessage } from './turn-records';
import { parseArguments } from './tool-call-arguments';

/**
 * The batch parks: each call kept for an approver is requested, in batch order, with the
 * prompt the policy describes (options, editable arguments, quorum, timers, grant offer).
 */
export function requestApprovals(
  recorder: SessionRecorder,
  deps: TurnConfig,
  batchId: string,
  content: string,
  gated: readonly ToolCall[],
): void {
  const tools = sessionTools(recorder, deps);
  for (const call of gated) {
    const entry = deps.policy.entryFor(call.toolName);
    const tool = tools.get(call.toolName);
    if (!entry || !tool) continue;
    const seq = recorder.nextSeq;
    const user = lastUserMessage(recorder);
    const editable = editableArguments(
      entry.editable,
      parseArguments(call.arguments) as JsonObject | undefined,
    );
    const quorum = entry.quorum === undefined ? undefined : promptQuorum(entry.quorum, user);
    const request = recorder.output(seq, 0, {
      type: 'ToolInteractionRequest',
      callId: call.callId,
      batchId,
      toolName: call.toolName,
      displayText: promptText(recorder, call, content, user, entry.quorum),
      requester: user.sender,
      ...(entry.quorum?.approvers ? { approvers: [...entry.quorum.approvers] } : {}),
      ...(entry.quorum?.approverGroups ? { approverGroups: [...entry.quorum.approverGroups] } : {}),
      principal: user.principal,
      options: [...entry.options],
      // Every approver of a tally approves the same arguments (an edit is refused there).
      ...(editable && !quorum ? { editable } : {}),
      ...(quorum ? { quorum } : {}),
    });
    if (request.type !== 'ToolInteractionRequest') throw new Error('unreachable');
    const timers = promptTimersAt(entry.timers, request.occurredAt);
    recorder.record(
      {
        type: 'ToolApprovalRequested',
        batchId,
        callId: call.callId,
        toolName: call.toolName,
        displayText: request.displayText,
        requester: request.requester,
        principal: request.principal,
        options: request.options,
        request,
        ...(timers ? { timers } : {}),
        ...(entry.always && request.options.some((o) => o.key === 'approve_always')
          ? { grantOffer: journaledOffer(entry.always) }
          : {}),
      },
      [request],
    );
  }
}

/**
 * G1: the tally a prompt with a quorum starts with. Only a person can be kept separate from
 * their own call: an automation's message has no one behind it.
 */
function promptQuorum(
  policy: QuorumPolicy,
  user: { sender: Person; principal: Principal },
): Quorum {
  const separateFrom =
    policy.separateApprover && user.principal === 'user' ? user.sender : undefined;
  return quorumOf({
    rule: {
      required: policy.required,
      ...(policy.approvers ? { approvers: policy.approvers } : {}),
      ...(policy.approverGroups ? { approverGroups: policy.approverGroups.map((g) => g.id) } : {}),
      ...(separateFrom ? { separateFrom } : {}),
    },
    approvals: [],
  });
}

/**
 * A4: the prompt shows the tool and the arguments the model gave, as they will run; the model's
 * own text of the batch only as "Agent says:". Arguments that are no JSON object are shown as
 * the text the model sent, which is what the tool would be refused with.
 */
function promptText(
  recorder: SessionRecorder,
  call: ToolCall,
  content: string,
  user: { sender: Person; principal: Principal },
  quorum: QuorumPolicy | undefined,
): string {
  const state = recorder.current;
  const parsed = parseArguments(call.arguments);
  const platform = state.conversation?.platform ?? 'discord';
  return renderPromptText({
    tool: call.toolName,
    arguments: parsed ?? { arguments: call.arguments },
    argumentsHash: argumentsHashOf(parsed ?? call.arguments),
    summary: content,
    agent: {
      name: state.parent ? `sub-agent ${state.parent.name}` : 'Tollgate',
      session: state.sessionId,
      ...(user.principal === 'user' ? { onBehalfOf: user.sender } : {}),
    },
    ...(quorum?.approverGroups ? { approverGroups: quorum.approverGroups } : {}),
    approvers:
      quorum !== undefined
        ? (quorum.approvers ?? 'any member')
        : user.principal === 'user'
          ? [user.sender]
          : 'any member',
    maxChars: PROMPT_TEXT_BUDGET[platform],
  });
}
