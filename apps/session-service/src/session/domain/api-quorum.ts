import type {
  ApprovalCount,
  ApprovalDecision,
  ApprovalRequest,
  ApprovalStatus,
  Option,
  OptionKey,
  Quorum,
  RejectionReason,
  ToolInteractionRequest,
  ToolInteractionResponse,
} from '@tollgate/protocol';
import { countedIn, decideTally, quorumOf, tallyOfRequest } from '@tollgate/session-read-model';
import type { OutputDraft, SessionRecorder } from './session-recorder';

/**
 * G1 for the approval API: an `ApprovalRequest` with `quorum` or `separateApprover` is decided
 * by the tally like the session's own prompts; its one `ApprovalDecided` lists the approvals.
 */

/** The tally the prompt starts with; undefined for the default (one approver's answer). */
export function apiQuorum(command: ApprovalRequest): Quorum | undefined {
  const required = command.quorum ?? 1;
  const separateFrom = command.separateApprover === true ? command.onBehalfOf : undefined;
  if (required === 1 && separateFrom === undefined) return undefined;
  return quorumOf({
    rule: {
      required,
      approvers: command.approvers,
      ...(command.approverGroups
        ? { approverGroups: command.approverGroups.map((g) => g.id) }
        : {}),
      ...(separateFrom ? { separateFrom } : {}),
    },
    approvals: [],
  });
}

/** Only approve once and deny: a grant would let one approver stand in for the others later. */
export function quorumOptions(keys: readonly OptionKey[]): OptionKey[] {
  const approves = keys.some((key) => key !== 'deny');
  return [...(approves ? (['approve_once'] as const) : []), ...keys.filter((k) => k === 'deny')];
}

export interface ApiTallyEffects {
  refuse(reason: RejectionReason): void;
  decide(status: ApprovalStatus, decision: ApprovalDecision, drafts: readonly OutputDraft[]): void;
}

export function answerApiTally(
  recorder: SessionRecorder,
  command: ToolInteractionResponse,
  option: Option,
  request: ToolInteractionRequest & { readonly quorum: Quorum },
  effects: ApiTallyEffects,
): void {
  const events = decideTally(tallyOfRequest(request), {
    by: command.sender,
    approve: option.key !== 'deny',
    at: recorder.clock,
    ...(command.memberOf === undefined ? {} : { memberOf: command.memberOf }),
  });
  const platform = request.conversation.platform;
  const decision = (approvals: readonly ApprovalCount[]): ApprovalDecision => ({
    option: option.key,
    by: byOf(platform, command.sender),
    via: command.via ?? 'click',
    reason: null,
    approvals: approvals.map((a) => ({ by: byOf(platform, a.by), at: a.at })),
  });
  const resolved = (approvals: readonly ApprovalCount[]): OutputDraft => ({
    type: 'ToolInteractionResolved',
    callId: command.callId,
    optionKey: option.key,
    label: option.label,
    resolvedBy: command.sender,
    approvals: [...approvals],
  });
  for (const event of events) {
    switch (event.type) {
      case 'AnswerRefused':
        effects.refuse(event.reason);
        return;
      case 'Vetoed':
        effects.decide('denied', decision(event.approvals), [resolved(event.approvals)]);
        return;
      case 'ApprovalCounted': {
        const reached = events.some((e) => e.type === 'QuorumReached');
        recorder.record(
          {
            type: 'ApiApprovalCounted',
            commandId: command.id,
            approvalId: command.callId,
            by: event.approval.by,
            at: event.approval.at,
          },
          reached
            ? []
            : [
                {
                  type: 'ToolInteractionUpdate',
                  callId: command.callId,
                  status: 'Tallied',
                  request: countedIn(request, event.approval),
                },
              ],
          { conversation: request.conversation },
        );
        break;
      }
      case 'QuorumReached':
        effects.decide('approved', decision(event.approvals), [resolved(event.approvals)]);
        return;
    }
  }
}

function byOf(
  platform: ToolInteractionRequest['conversation']['platform'],
  person: ToolInteractionRequest['requester'],
): ApprovalDecision['by'] {
  return {
    platform,
    id: person.id,
    ...(person.displayName === undefined ? {} : { displayName: person.displayName }),
  };
}
