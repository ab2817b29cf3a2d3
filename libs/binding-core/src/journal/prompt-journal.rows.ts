// The `prompts` row as it is read and written: its columns, the intent a lease keeps on it,
// and how a row reads as a PromptState (and a state as the row's projection). Apart from the
// repository so the SQL there reads as steps, and the row's rules sit in one place.
import { fromJsonbValue } from '@tollgate/persistence';
import type { Conversation, ToolInteractionRequest } from '@tollgate/protocol';
import type { MessageRef } from '../platform-adapter.port';
import type { EffectDecision } from '../prompt/prompt-decision';
import {
  UNTRACKED,
  type ClearedOutcome,
  type PromptState,
  type PromptStatus,
} from '../prompt/prompt-state';
import type { ApproverMembers, PendingPrompt } from './prompt-journal.port';

/** The effect a handler set out to make, kept on the row until it is journaled. */
export interface StoredIntent {
  readonly claimId: string;
  readonly owner: string;
  /**
   * What was set out on. A pending prompt's lease taken as it is read (GRAB_OR_READ) names
   * only the kind: an edit's intent is never read back beyond it, a post's always whole.
   */
  readonly decision: EffectDecision | { readonly kind: 'edit' };
  /** A post's nonce, chosen before it is made: a post found later carries this one. */
  readonly postNonce?: string;
  /**
   * When the effect was first set out on (ISO-8601), kept by every later claim of the same
   * unfinished post: reconciliation reads the platform back to it, and gives up on it after a
   * bounded time.
   */
  readonly since?: string;
}

export interface PromptRow {
  prompt_ref: string;
  conversation: Conversation;
  status: PromptStatus;
  last_seq: number;
  request: ToolInteractionRequest | null;
  message_ref: MessageRef | null;
  outcome: ClearedOutcome | null;
  post_nonce: string | null;
  lease_owner: string | null;
  intent: StoredIntent | null;
  /** R3: a post of the prompt may be on the platform untracked, set out on at this time. */
  stray_since?: Date | null;
  leased: boolean;
  lease_remaining_ms: number | null;
  /** xmin, when read for an optimistic claim. */
  version?: string;
  /** GRAB_OR_READ took the lease of this pending prompt with the statement that read it. */
  grabbed?: boolean;
}

/** The projection row says something its status cannot hold; a bug or a hand edit. */
export class CorruptPromptRow extends Error {
  override readonly name = 'CorruptPromptRow';
}

export function requestOf(state: PromptState): ToolInteractionRequest | undefined {
  return state.status === 'untracked' ? undefined : state.request;
}

/** The claim's `straySince`, when a post of the prompt may be on the platform untracked. */
export function strayOf(row: PromptRow): { straySince?: Date } {
  const since = row.stray_since;
  if (since === undefined || since === null) return {};
  return { straySince: since instanceof Date ? since : new Date(since) };
}

/** An intent from before `since` was kept counts as set out on now: its age is unknown. */
export function sinceOf(intent: StoredIntent): Date {
  const since = intent.since === undefined ? Number.NaN : Date.parse(intent.since);
  return Number.isNaN(since) ? new Date() : new Date(since);
}

export function projectionOf(state: PromptState): {
  status: PromptStatus;
  lastSeq: number;
  request?: ToolInteractionRequest;
  messageRef?: MessageRef;
  outcome?: ClearedOutcome;
} {
  switch (state.status) {
    case 'untracked':
      return { status: 'untracked', lastSeq: 0 };
    case 'pending':
      return { ...state };
    case 'cleared':
      return { ...state };
  }
}

/**
 * Display text and names in a request (and in an intent's rendering) may hold U+0000 or lone
 * surrogates, which jsonb refuses: they are written with toJsonbText and read back here.
 */
export function decodedRow(row: PromptRow): PromptRow {
  return {
    ...row,
    request: fromJsonbValue<PromptRow['request']>(row.request),
    message_ref: fromJsonbValue<PromptRow['message_ref']>(row.message_ref),
    intent: fromJsonbValue<PromptRow['intent']>(row.intent),
  };
}

export function stateOfRow(row: PromptRow): PromptState {
  switch (row.status) {
    case 'untracked':
      return UNTRACKED;
    case 'pending':
      if (row.request === null || row.message_ref === null) {
        throw new CorruptPromptRow(`pending prompt ${row.prompt_ref} lacks its request or message`);
      }
      return {
        status: 'pending',
        lastSeq: row.last_seq,
        request: row.request,
        messageRef: row.message_ref,
      };
    case 'cleared':
      if (row.outcome === null) {
        throw new CorruptPromptRow(`cleared prompt ${row.prompt_ref} lacks its outcome`);
      }
      return {
        status: 'cleared',
        lastSeq: row.last_seq,
        outcome: row.outcome,
        ...(row.request === null ? {} : { request: row.request }),
        ...(row.message_ref === null ? {} : { messageRef: row.message_ref }),
      };
  }
}

export interface PendingRow {
  session_id: string;
  call_id: string;
  conversation: Conversation;
  prompt_ref: string;
  request: ToolInteractionRequest | null;
  message_ref: MessageRef | null;
  traceparent: string | null;
  approver_members: ApproverMembers | null;
}

export function pendingPrompts(rows: readonly PendingRow[]): PendingPrompt[] {
  return rows
    .map((row) => {
      const request = fromJsonbValue<ToolInteractionRequest | null>(row.request);
      const messageRef = fromJsonbValue<MessageRef | null>(row.message_ref);
      if (request === null || messageRef === null) {
        throw new CorruptPromptRow(`pending prompt ${row.prompt_ref} lacks its request or message`);
      }
      return {
        key: { sessionId: row.session_id, callId: row.call_id },
        conversation: row.conversation,
        promptRef: row.prompt_ref,
        ...(request.agent === undefined ? {} : { agent: request.agent }),
        request,
        messageRef,
        ...(row.traceparent ? { traceparent: row.traceparent } : {}),
        ...(row.approver_members ? { approverMembers: row.approver_members } : {}),
      };
    })
    .sort((a, b) => a.request.seq - b.request.seq);
}
