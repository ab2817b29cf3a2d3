import type { ToolInteractionRequest } from '@tollgate/protocol';
import type { MessageRef } from '../platform-adapter.port';

/** A prompt is identified by (sessionId, callId): call ids repeat across sessions. */
export interface PromptKey {
  readonly sessionId: string;
  readonly callId: string;
}

/** How a prompt ended; `tombstone` = it ended before anything was shown (B8). */
export type ClearedOutcome = 'resolved' | 'abandoned' | 'expired' | 'tombstone';

/**
 * What the binding knows of one prompt. Closed: every switch over `status` is exhaustive,
 * and `cleared` is terminal (docs/architecture.md §4.1).
 */
export type PromptState =
  | { readonly status: 'untracked' }
  | {
      readonly status: 'pending';
      readonly lastSeq: number;
      readonly request: ToolInteractionRequest;
      readonly messageRef: MessageRef;
    }
  | {
      readonly status: 'cleared';
      readonly lastSeq: number;
      readonly outcome: ClearedOutcome;
      /** Absent for a tombstone: nothing was ever shown. */
      readonly request?: ToolInteractionRequest;
      readonly messageRef?: MessageRef;
    };

export type PromptStatus = PromptState['status'];

export const UNTRACKED: PromptState = { status: 'untracked' };
