// The session's state as its journal leaves it: what a replay of the events knows. The pure
// fold that builds it is session-state.ts; these are only its shapes.
import type { Conversation, Person, Principal, ToolInteractionRequest } from '@tollgate/protocol';
import type { ApprovalTurn } from './approval-turn';
import type { SubAgentParent } from './sub-agent-parent';
import type { JournaledGrantOffer, ToolCall, ToolCallOutcome } from './session-event';

/** What the session knows of one call of the current batch that was put to an approver. */
export interface RequestedCall {
  readonly request: ToolInteractionRequest;
  readonly resolution?: { readonly optionKey: string; readonly approved: boolean };
  /** Set once the call can no longer be answered because its batch was abandoned. */
  readonly abandoned?: boolean;
  /** G3: what "Always allow" on its prompt gives. */
  readonly grantOffer?: JournaledGrantOffer;
}

export interface CurrentBatch {
  readonly batchId: string;
  /** Seq of its ToolBatchStarted: the batch's context is the journal up to here. */
  readonly seq: number;
  readonly toolCalls: readonly ToolCall[];
  readonly started: readonly string[];
  readonly results: Readonly<Record<string, { outcome: ToolCallOutcome; result: string }>>;
}

export interface SessionState {
  readonly sessionId: string;
  /** Seq of the last journaled event; 0 for a session that does not exist yet. */
  readonly version: number;
  readonly conversation?: Conversation;
  readonly turn: ApprovalTurn;
  /** The message that started the current turn: its sender requests the turn's approvals. */
  readonly turnMessage?: {
    readonly seq: number;
    readonly sender: Person;
    readonly principal: Principal;
  };
  readonly batch?: CurrentBatch;
  /** Calls of the current batch put to an approver, with their request. */
  readonly requested: Readonly<Record<string, RequestedCall>>;
  /**
   * Calls of earlier batches, only as "was it answered": a late click needs no more (its
   * request is in the journal). A store may load only the entry the command at hand names,
   * so the state it keeps stays the same size however long the session runs.
   */
  readonly settledCalls: Readonly<Record<string, boolean>>;
  /** How many notes write_note stored; the notes themselves are in the journal. */
  readonly noteCount: number;
  /**
   * "Allow in this chat": which person allowed which tool for the rest of this chat. Each
   * covers only the person who gave it, so one participant cannot open a tool for another.
   */
  readonly sessionGrants: readonly SessionGrant[];
  /** Set in a sub-agent's session: the parent call it serves (its outputs name it). */
  readonly parent?: SubAgentParent;
  /** A sub-agent's tools, as `delegate` limited them. */
  readonly toolSubset?: readonly string[];
  /** `delegate` calls of the current batch whose sub-agent has not reported yet. */
  readonly subAgents: Readonly<Record<string, RunningSubAgent>>;
  /** A2: set in an agent session of the approval API: the client it belongs to. */
  readonly apiClientId?: string;
  /**
   * A2: the API approvals waiting for an answer, by approval id (many at once: an agent
   * session has no turn, each approval stands alone). A decided one leaves for `settledCalls`.
   */
  readonly apiApprovals: Readonly<Record<string, PendingApiApproval>>;
}

export interface PendingApiApproval {
  /** The prompt as first published; its `callId` is the approval id. */
  readonly request: ToolInteractionRequest;
  /** Journal seq of the ApiApprovalRequested event. */
  readonly requestedSeq: number;
  /** G2: the arguments as asked, kept only when the prompt offers an edit (to run edited). */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** G3: what its "Always allow" gives, journaled with the request. */
  readonly grantOffer?: JournaledGrantOffer;
}

export interface RunningSubAgent {
  readonly childSessionId: string;
  readonly name: string;
}

export interface SessionGrant {
  readonly personId: string;
  readonly toolName: string;
}
