import { type AuditDraft, type AuditWho, argumentsHashOf } from '@tollgate/audit';
import type { Person } from '@tollgate/protocol';
import type { JournaledEvent } from '@tollgate/session-read-model';
import { DEADLINE_DENIED_KEY, DEADLINE_EXPIRED_KEY } from '../session/domain/prompt-timer';

/**
 * G4: the audit entries a journaled event stands for (none for the bookkeeping ones). Pure,
 * so replaying a journal would give the same entries. Chat text, tool results and notes are
 * left out: the trail says who decided what on which arguments (their hash), not what was said.
 */
export function auditEntriesOf(sessionId: string, journaled: JournaledEvent): AuditDraft[] {
  const { event, occurredAt: at } = journaled;
  const entry = (
    kind: AuditDraft['kind'],
    fields: Partial<Omit<AuditDraft, 'kind' | 'at' | 'sessionId'>> = {},
  ): AuditDraft => ({
    at,
    kind,
    sessionId,
    callId: fields.callId ?? null,
    who: fields.who ?? null,
    via: fields.via ?? null,
    argumentsHash: fields.argumentsHash ?? null,
    detail: { seq: journaled.seq, ...fields.detail },
  });
  switch (event.type) {
    case 'UserMessageReceived':
      return [
        entry('message', {
          who: whoOf(event.sender),
          detail: { commandId: event.commandId, principal: event.principal },
        }),
      ];
    case 'ToolBatchStarted':
      return event.toolCalls.map((call) =>
        entry('call_proposed', {
          callId: call.callId,
          argumentsHash: argumentsHashOf(call.arguments),
          detail: { batchId: event.batchId, tool: call.toolName },
        }),
      );
    case 'ToolApprovalRequested':
      return [
        entry('request', {
          callId: event.callId,
          who: whoOf(event.requester),
          detail: {
            batchId: event.batchId,
            tool: event.toolName,
            principal: event.principal,
            options: event.options.map((o) => o.key),
            ...(event.timers?.deadline ? { deadline: event.timers.deadline } : {}),
            // G3: what "Always allow" on it gives; its grant_given entry refers to this call.
            ...(event.grantOffer ? { always: event.grantOffer } : {}),
          },
        }),
      ];
    case 'PromptShown':
      // The platform's own ids of the message the prompt was posted as, so an auditor finds it.
      return [
        entry('prompt_shown', {
          callId: event.callId,
          detail: {
            commandId: event.commandId,
            platform: event.platform,
            channelId: event.messageRef.channelId,
            messageId: event.messageRef.messageId,
            shown: event.shown,
          },
        }),
      ];
    case 'ToolApprovalReminded':
      return [
        entry('reminder', {
          callId: event.callId,
          detail: { commandId: event.commandId, reminder: event.reminder },
        }),
      ];
    case 'ToolApprovalResolved': {
      if (event.optionKey === DEADLINE_DENIED_KEY || event.optionKey === DEADLINE_EXPIRED_KEY) {
        return [
          entry('deadline', {
            callId: event.callId,
            via: 'deadline',
            detail: { commandId: event.commandId, option: event.optionKey },
          }),
        ];
      }
      const answer = entry(event.approvals !== undefined && !event.approved ? 'veto' : 'answer', {
        callId: event.callId,
        who: whoOf(event.resolvedBy),
        via: event.via ?? null,
        detail: {
          commandId: event.commandId,
          option: event.optionKey,
          label: event.label,
          approved: event.approved,
          ...approvalsDetail(event.approvals),
        },
      });
      if (event.edit !== undefined) {
        // G2: the edit is its own step, bound to the hash of the arguments that will run;
        // the values stay in the journal, the trail names which arguments changed.
        return [
          answer,
          entry('edit', {
            callId: event.callId,
            who: whoOf(event.resolvedBy),
            argumentsHash: event.edit.argumentsHash,
            detail: {
              commandId: event.commandId,
              changed: event.edit.changes.map((c) => c.name),
            },
          }),
        ];
      }
      const scope = GRANT_SCOPES[event.optionKey];
      if (scope === undefined || !event.approved) return [answer];
      return [
        answer,
        entry('grant_given', {
          callId: event.callId,
          who: whoOf(event.resolvedBy),
          detail: { scope, commandId: event.commandId },
        }),
      ];
    }
    case 'ToolApprovalCounted':
      return [
        entry('quorum_step', {
          callId: event.callId,
          who: whoOf(event.by),
          via: event.via ?? null,
          detail: { commandId: event.commandId },
        }),
      ];
    case 'ApiApprovalCounted':
      return [
        entry('quorum_step', {
          callId: event.approvalId,
          who: whoOf(event.by),
          detail: { commandId: event.commandId },
        }),
      ];
    case 'ToolApprovalRefused':
      return [
        entry('refusal', {
          callId: event.callId,
          who: whoOf(event.sender),
          via: event.via ?? null,
          detail: {
            commandId: event.commandId,
            option: event.optionKey,
            reason: event.reason,
            ...(event.detail === undefined ? {} : { edit: event.detail }),
          },
        }),
      ];
    case 'ToolCallGranted':
      return [
        entry('grant_used', {
          callId: event.callId,
          who: { id: event.grant.personId },
          via: 'grant',
          detail: { tool: event.toolName, ...event.grant },
        }),
      ];
    case 'ToolExecutionStarted':
      return [entry('run', { callId: event.callId, detail: { tool: event.toolName } })];
    case 'ToolCallRecorded':
      return [
        entry('result', {
          callId: event.callId,
          detail: { tool: event.toolName, outcome: event.outcome },
        }),
      ];
    case 'ToolBatchAbandoned':
      return [
        entry('abandon', {
          detail: {
            batchId: event.batchId,
            reason: event.reason,
            callIds: event.results.map((r) => r.callId),
          },
        }),
      ];
    case 'ApiApprovalRequested':
      return [
        entry('request', {
          callId: event.approvalId,
          who: event.onBehalfOf ? whoOf(event.onBehalfOf) : null,
          argumentsHash: event.argumentsHash,
          detail: {
            commandId: event.commandId,
            clientId: event.clientId,
            clientName: event.clientName,
            tool: event.tool,
            caller: event.caller,
            approvers: event.approvers.map((p) => p.id),
            ...(event.request?.approverGroups
              ? { approverGroups: event.request.approverGroups.map((g) => g.id) }
              : {}),
            prompted: event.request !== undefined,
          },
        }),
      ];
    case 'ApiApprovalDecided': {
      const { decision } = event;
      const base = {
        callId: event.approvalId,
        detail: {
          commandId: event.commandId,
          clientId: event.clientId,
          tool: event.tool,
          status: event.status,
          option: decision?.option ?? null,
          reason: decision?.reason ?? null,
          ...approvalsDetail(decision?.approvals),
        },
      };
      if (decision === null)
        return [entry(event.status === 'cancelled' ? 'cancel' : 'decision', base)];
      const who: AuditWho = {
        id: decision.by.id,
        platform: decision.by.platform,
        ...(decision.by.displayName === undefined ? {} : { displayName: decision.by.displayName }),
      };
      const kind =
        decision.via === 'grant'
          ? 'grant_used'
          : decision.via === 'deadline'
            ? 'deadline'
            : decision.approvals !== undefined && event.status === 'denied'
              ? 'veto'
              : 'decision';
      // G3: the grant a grant_used entry took its use of (scope, uses left, expiry).
      const decided = entry(kind, {
        ...base,
        ...(event.grant === undefined ? {} : { detail: { ...base.detail, grant: event.grant } }),
        who,
        via: decision.via,
      });
      if (decision.finalArgumentsHash !== undefined) {
        // G2: approved with edited arguments, bound to the hash the agent must redeem with.
        return [
          decided,
          entry('edit', {
            callId: event.approvalId,
            who,
            via: decision.via,
            argumentsHash: decision.finalArgumentsHash,
            detail: { commandId: event.commandId, clientId: event.clientId, tool: event.tool },
          }),
        ];
      }
      if (decision.option !== 'approve_always' || decision.via === 'grant') return [decided];
      return [
        decided,
        entry('grant_given', {
          callId: event.approvalId,
          who,
          via: decision.via,
          detail: {
            scope: 'always',
            clientId: event.clientId,
            tool: event.tool,
            ...(event.grantOffer === undefined ? {} : { offer: event.grantOffer }),
          },
        }),
      ];
    }
    case 'SessionQuarantined':
      return [
        entry('quarantine', {
          detail: { reason: event.reason, expiredCallIds: event.expiredCallIds },
        }),
      ];
    case 'SessionStarted':
    case 'SubAgentStarted':
    case 'SubAgentsAwaited':
    case 'SubAgentFinished':
    case 'SessionRecovered':
    case 'PendingApprovalsReannounced':
    case 'TurnCompleted':
    case 'TurnFailed':
      return [];
  }
}

/** G1: who had approved (their ids, oldest first) when a quorum was reached or vetoed. */
function approvalsDetail(
  approvals: readonly { readonly by: { readonly id: string } }[] | undefined,
): { approvals?: string[] } {
  return approvals === undefined ? {} : { approvals: approvals.map((a) => a.by.id) };
}

/** The answers that also give a grant, and how far it reaches. */
const GRANT_SCOPES: Readonly<Record<string, string>> = {
  approve_session: 'this chat',
  approve_always: 'always',
};

function whoOf(person: Person): AuditWho {
  return {
    id: person.id,
    ...(person.displayName === undefined ? {} : { displayName: person.displayName }),
  };
}
