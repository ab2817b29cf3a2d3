import type { Person } from '@tollgate/protocol';
import type { MessageRef, PromptView } from '../platform-adapter.port';
import type { PromptCleared, PromptRefreshed } from './prompt-event';

/** Why an output changed nothing; logged with the output. */
export type PromptDropReason =
  /** `seq` not newer than the last applied: a redelivery or an output overtaken by a later one. */
  | 'stale_seq'
  /** A newer `Request` for a prompt already shown: the table says drop, never post twice. */
  | 'duplicate_request'
  /** Terminal states never change again. */
  | 'prompt_cleared'
  /** A refresh the binding cannot re-post; the wire schema already refuses it. */
  | 'refresh_without_request';

/** The views a new message can start with: both keep the buttons. */
export type PostableView = Extract<PromptView, { kind: 'pending' | 'refreshed' }>;

/**
 * What one output does to one prompt (docs/architecture.md §4.1). Decisions that touch the chat
 * carry everything needed to journal their result once the platform has answered.
 */
export type PromptDecision =
  | { readonly kind: 'drop'; readonly reason: PromptDropReason }
  /** Cleared before anything was shown (B8): journal only, nothing on the platform. */
  | { readonly kind: 'tombstone'; readonly event: PromptCleared }
  | { readonly kind: 'post'; readonly seq: number; readonly view: PostableView }
  | {
      readonly kind: 'edit';
      readonly messageRef: MessageRef;
      readonly view: PromptView;
      readonly event: PromptRefreshed | PromptCleared;
    }
  /** `Rejected`: shown privately to the clicker; the prompt itself does not change. */
  | {
      readonly kind: 'notice';
      readonly to: Person;
      readonly text: string;
      readonly near?: MessageRef;
    };

export type PromptDecisionKind = PromptDecision['kind'];
export type PostDecision = Extract<PromptDecision, { kind: 'post' }>;
export type EditDecision = Extract<PromptDecision, { kind: 'edit' }>;
/** The decisions that need the platform and therefore a lease. */
export type EffectDecision = PostDecision | EditDecision;
/** The decisions settled by the journal alone. */
export type SettledDecision = Extract<PromptDecision, { kind: 'drop' | 'tombstone' }>;
