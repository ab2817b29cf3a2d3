import type {
  ArgumentChange,
  ApprovalCount,
  ApprovalDecision,
  ApprovalStatus,
  Conversation,
  Option,
  Person,
  Principal,
  RejectionReason,
  ToolInteractionRequest,
} from '@tollgate/protocol';
import type { AbandonReason } from './approval-turn';
import type { SubAgentParent } from './sub-agent-parent';

/**
 * The session journal's events (docs/architecture.md §3.1). Stored as written, as JSON, keyed by
 * (session_id, seq); names never change once journaled.
 */

export interface ToolCall {
  readonly callId: string;
  readonly toolName: string;
  /** The arguments as the model gave them (a JSON text). */
  readonly arguments: string;
}

/** What the model saw and said, enough to continue the turn months later in a new process. */
export type ProviderMessage =
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly toolCalls?: readonly ToolCall[];
    }
  | { readonly role: 'tool'; readonly callId: string; readonly content: string };

/**
 * What an earlier version wrote into every ToolApprovalRequested: the whole provider history,
 * once per gated call. Still read (journals keep it), never written: a batch's context is
 * now the journal itself up to its ToolBatchStarted (provider-history.ts).
 */
export interface TurnContext {
  readonly turnSeq: number;
  readonly messages: readonly ProviderMessage[];
}

/**
 * G3: what "Always allow" on a prompt gives, as journaled with its request (the policy's
 * `always:` then): constraints in the policy's form by argument name, a lifetime, a number of
 * uses. Whatever the policy says later, the grant is what the approver saw.
 */
export interface JournaledGrantOffer {
  readonly scope?: Record<string, Record<string, unknown>>;
  readonly ttlMs?: number;
  readonly uses?: number;
}

/** Which grant covered a call, as `tollgate grants list` names it. */
export interface GrantUse {
  readonly kind: 'always' | 'session';
  /** Whose grant: the person whose message started the turn. */
  readonly personId: string;
  /** When the grant was given (it tells a grant from a later one for the same tool). */
  readonly grantedAt?: string;
  /** Uses left after this one, for a grant with a number of uses. */
  readonly usesLeft?: number;
  readonly expiresAt?: string;
  readonly scope?: Record<string, Record<string, unknown>>;
}

export type ToolCallOutcome =
  'ok' | 'error' | 'denied' | 'refused_by_policy' | 'unknown_tool' | 'abandoned';

export type SessionEvent =
  | {
      readonly type: 'SessionStarted';
      readonly conversation: Conversation;
      /** A2: an agent session of the approval API, for this client. */
      readonly apiClientId?: string;
      /** A sub-agent's session: the parent call it serves, and the tools it may use. */
      readonly parent?: SubAgentParent;
      readonly tools?: readonly string[];
    }
  | {
      readonly type: 'UserMessageReceived';
      readonly commandId: string;
      readonly sender: Person;
      readonly text: string;
      readonly principal: Principal;
    }
  | {
      readonly type: 'ToolBatchStarted';
      readonly batchId: string;
      readonly content: string;
      readonly toolCalls: readonly ToolCall[];
    }
  | {
      readonly type: 'ToolApprovalRequested';
      readonly batchId: string;
      readonly callId: string;
      readonly toolName: string;
      readonly displayText: string;
      readonly requester: Person;
      readonly principal: Principal;
      readonly options: readonly Option[];
      /** Legacy journals only; see TurnContext. */
      readonly turnContext?: TurnContext;
      /** The output as first published, re-sent whole with every refresh. */
      readonly request: ToolInteractionRequest;
      /**
       * S22: the reminders and deadline the policy set, as instants fixed when the prompt was
       * requested (a later policy change does not move them). Absent: no timeout.
       */
      readonly timers?: PromptTimers;
      /**
       * G3: what "Always allow" on this prompt gives (the policy's `always:` when it was
       * asked); absent, the tool for ever. The button's label said as much.
       */
      readonly grantOffer?: JournaledGrantOffer;
    }
  | {
      readonly type: 'ToolApprovalResolved';
      readonly commandId: string;
      /** G4: a button or a typed answer (absent in journals written before it was kept). */
      readonly via?: 'click' | 'text';
      readonly callId: string;
      readonly optionKey: string;
      readonly label: string;
      readonly approved: boolean;
      readonly resolvedBy: Person;
      /** G2: approved with edited arguments; the call runs with exactly these. */
      readonly edit?: ApprovalEdit;
      /**
       * G1, on a prompt with a quorum: every approval counted (approved: all of them, the last
       * `resolvedBy`'s; a veto: those it overruled).
       */
      readonly approvals?: readonly ApprovalCount[];
    }
  /**
   * G1: an approval of a prompt with a quorum was counted (`at`: when). The one that reaches
   * the quorum is followed by ToolApprovalResolved in the same decision.
   */
  | {
      readonly type: 'ToolApprovalCounted';
      readonly commandId: string;
      /** G4: a button or a typed answer (absent in journals written before it was kept). */
      readonly via?: 'click' | 'text';
      readonly callId: string;
      readonly by: Person;
      readonly at: string;
    }
  | {
      readonly type: 'ToolApprovalRefused';
      readonly commandId: string;
      /** G4: a button or a typed answer (absent in journals written before it was kept). */
      readonly via?: 'click' | 'text';
      readonly callId: string;
      readonly optionKey: string;
      readonly sender: Person;
      readonly reason: RejectionReason;
      /** G2: for `edit_refused`, the argument at fault and why (a constraint's code). */
      readonly detail?: { readonly argument?: string; readonly code: string };
    }
  | {
      /**
       * G3: a grant covered the call, so no one was asked. Journaled with the call's start,
       * in the transaction that took one of a limited grant's uses.
       */
      readonly type: 'ToolCallGranted';
      readonly callId: string;
      readonly toolName: string;
      readonly grant: GrantUse;
    }
  | { readonly type: 'ToolExecutionStarted'; readonly callId: string; readonly toolName: string }
  | {
      readonly type: 'ToolCallRecorded';
      readonly callId: string;
      readonly toolName: string;
      readonly outcome: ToolCallOutcome;
      readonly result: string;
      /** A note the call stored in the session (write_note). */
      readonly note?: string;
    }
  | {
      readonly type: 'ToolBatchAbandoned';
      readonly batchId: string;
      readonly reason: AbandonReason;
      /** Synthetic results for every call without one, so provider history stays whole. */
      readonly results: readonly { readonly callId: string; readonly result: string }[];
    }
  /** A `delegate` call started its child; its result comes with SubAgentFinished. */
  | {
      readonly type: 'SubAgentStarted';
      readonly callId: string;
      readonly childSessionId: string;
      readonly name: string;
    }
  /** The batch waits for the sub-agents of its delegated calls. */
  | { readonly type: 'SubAgentsAwaited'; readonly batchId: string }
  /** A child reported; its result was recorded just before as the call's ToolCallRecorded. */
  | {
      readonly type: 'SubAgentFinished';
      readonly callId: string;
      readonly childSessionId: string;
      readonly outcome: 'ok' | 'failed';
    }
  /** S22: a reminder of a prompt still pending was posted (once: `commandId` is its key). */
  | {
      readonly type: 'ToolApprovalReminded';
      readonly commandId: string;
      readonly callId: string;
      readonly reminder: number;
    }
  /**
   * G4: a binding reported a prompt posted (or reposted in place of one it could no longer
   * edit) at these platform ids (`ToolInteractionShown`); the audit trail's `prompt_shown`.
   * Changes no state: the prompt's answer does not depend on it.
   */
  | {
      readonly type: 'PromptShown';
      readonly commandId: string;
      readonly callId: string;
      readonly platform: string;
      readonly messageRef: { readonly channelId: string; readonly messageId: string };
      readonly shown: 'posted' | 'reposted';
    }
  /**
   * A2: an outside agent asked through the approval API (an agent session only). `request` is
   * the prompt as first published (absent when a grant decided it at once, with no prompt).
   */
  | {
      readonly type: 'ApiApprovalRequested';
      readonly commandId: string;
      readonly approvalId: string;
      readonly clientId: string;
      readonly clientName: string;
      readonly conversation: Conversation;
      readonly tool: string;
      readonly arguments: Readonly<Record<string, unknown>>;
      readonly argumentsHash: string;
      readonly summary?: string;
      readonly caller: { readonly name: string; readonly session: string };
      readonly onBehalfOf?: Person;
      readonly approvers: readonly Person[];
      readonly options: readonly Option[];
      readonly request?: ToolInteractionRequest;
      readonly timers?: PromptTimers;
      /** G3 (2026-12-01 (f)): what the prompt's "Always allow" gives, as the approver saw it. */
      readonly grantOffer?: JournaledGrantOffer;
    }
  /** G1: an approval of an API approval with a quorum was counted (see ToolApprovalCounted). */
  | {
      readonly type: 'ApiApprovalCounted';
      readonly commandId: string;
      readonly approvalId: string;
      readonly by: Person;
      readonly at: string;
    }
  /** A2: the one decision of an API approval; its `ApprovalDecided` goes out with it. */
  | {
      readonly type: 'ApiApprovalDecided';
      readonly commandId: string;
      readonly approvalId: string;
      readonly clientId: string;
      readonly conversation: Conversation;
      readonly tool: string;
      readonly status: ApprovalStatus;
      readonly decision: ApprovalDecision | null;
      /** G3: an "Always allow" answer's offer, for the grant it gives (`tool_grants`). */
      readonly grantOffer?: JournaledGrantOffer;
      /** G3: the grant that decided it (`via: 'grant'`), with the use it took. */
      readonly grant?: GrantUse;
    }
  | { readonly type: 'SessionRecovered'; readonly pendingCallIds: readonly string[] }
  | { readonly type: 'PendingApprovalsReannounced'; readonly pendingCallIds: readonly string[] }
  | { readonly type: 'TurnCompleted'; readonly reply: string }
  | { readonly type: 'TurnFailed'; readonly reason: string }
  /**
   * Appended without replaying (the journal before it could not be replayed): the session
   * takes no more commands, and its open prompts were expired with a notice.
   */
  | {
      readonly type: 'SessionQuarantined';
      readonly reason: string;
      readonly expiredCallIds: readonly string[];
    };

export type SessionEventType = SessionEvent['type'];

/** G2: what an approver's edit made of a call's arguments, bound to their hash. */
export interface ApprovalEdit {
  /** The arguments to run, whole, as a JSON text (the form `ToolCall.arguments` has). */
  readonly arguments: string;
  readonly argumentsHash: string;
  readonly changes: readonly ArgumentChange[];
}

/** S22: a prompt's timers, as ISO instants. */
export interface PromptTimers {
  /** Ascending; reminder n (from 1) is due at `remindAt[n - 1]`. */
  readonly remindAt: readonly string[];
  readonly deadline?: { readonly at: string; readonly onDeadline: 'deny' | 'expire' };
}

export interface JournaledEvent {
  readonly seq: number;
  readonly occurredAt: string;
  readonly event: SessionEvent;
}
