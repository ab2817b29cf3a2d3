import type { Person, ToolInteractionRequest } from '@tollgate/protocol';
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
  };
}

export type PromptEvent = PromptTracked | PromptRefreshed | PromptCleared;

export type PromptEventType = PromptEvent['type'];

export const PROMPT_EVENT_TYPES = [
  'PendingApprovalPromptTracked',
  'PendingApprovalPromptRefreshed',
  'PendingApprovalPromptCleared',
] as const satisfies readonly PromptEventType[];
