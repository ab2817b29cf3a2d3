import type { ArgumentsEdit, Person, ToolInteractionRequest } from '@tollgate/protocol';
import type { MessageRef } from '../platform-adapter.port';
import type { ClearedOutcome } from './prompt-state';

/**
 * The binding's prompt journal. Names are stored exactly as written here (the contract
 * suite and operators read them); `seq` is the output seq that caused the event.
 */
export interface PromptTracked {
  readonly type: 'PendingApprovalPromptTracked';
  readonly seq: number;
  readonly request: ToolInteractionRequest;
  readonly messageRef: MessageRef;
  /** `refreshed` when the prompt was first posted from a refresh (the journal was empty). */
  readonly shown: 'pending' | 'refreshed';
}

export interface PromptRefreshed {
  readonly type: 'PendingApprovalPromptRefreshed';
  readonly seq: number;
  /**
   * G1: the request as it stands now, when the output carried one that changed (a tally):
   * later edits render it, so an approval counted before stays shown.
   */
  readonly request?: ToolInteractionRequest;
}

export interface PromptCleared {
  readonly type: 'PendingApprovalPromptCleared';
  readonly seq: number;
  readonly outcome: ClearedOutcome;
  /** For `abandoned` / `expired`: the session's human-readable reason, when it gave one. */
  readonly reason?: string;
  /** For `resolved`: the decision and who made it, kept for audit. */
  readonly resolution?: {
    readonly optionKey: string;
    readonly label: string;
    readonly resolvedBy: Person;
    readonly edit?: ArgumentsEdit;
  };
}

/**
 * The tracked message could not be edited for good (deleted, edit window closed): a new
 * message now shows the prompt (R4), and every later edit goes to it. Journaled right before
 * the event of the edit it stood in for.
 */
export interface PromptReposted {
  readonly type: 'PendingApprovalPromptReposted';
  readonly seq: number;
  readonly messageRef: MessageRef;
  /** The message it replaces, and why that one could not be edited. */
  readonly replaced: MessageRef;
  readonly reason: string;
}

export type PromptEvent = PromptTracked | PromptRefreshed | PromptReposted | PromptCleared;

export type PromptEventType = PromptEvent['type'];

export const PROMPT_EVENT_TYPES = [
  'PendingApprovalPromptTracked',
  'PendingApprovalPromptRefreshed',
  'PendingApprovalPromptReposted',
  'PendingApprovalPromptCleared',
] as const satisfies readonly PromptEventType[];
