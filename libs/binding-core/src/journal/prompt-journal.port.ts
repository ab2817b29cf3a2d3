import type { Conversation, ToolInteractionRequest } from '@tollgate/protocol';
import type { MessageRef, PromptTarget } from '../platform-adapter.port';
import type {
  EffectDecision,
  PostDecision,
  PromptDecision,
  SettledDecision,
} from '../prompt/prompt-decision';
import type { PromptEvent } from '../prompt/prompt-event';
import type { PromptKey, PromptState } from '../prompt/prompt-state';

/** Proof of holding a prompt's lease; completing or releasing with a lost lease does nothing. */
export interface PromptLease {
  readonly key: PromptKey;
  readonly claimId: string;
  /** The prompt as the claim found it; the events of the effect are folded into this. */
  readonly claimed: PromptState;
  /** The nonce of the post this effect makes or edits; journaled with its events. */
  readonly postNonce?: string;
}

export interface PromptClaimRequest {
  readonly key: PromptKey;
  readonly conversation: Conversation;
  /** This replica, recorded as `lease_owner` so an operator can tell who holds a prompt. */
  readonly owner: string;
  readonly leaseMs: number;
  /**
   * The output's seq when it edits a pending prompt whose last applied seq is older (an
   * Update or a Resolved): the claim may then take the lease with the read that finds the
   * prompt pending. None (a Request, which a pending prompt drops): it never does.
   */
  readonly editsPendingBefore?: number;
}

/** What claiming one prompt for one output gave. */
export type PromptClaim =
  /** Another handler holds a live lease: try again once it ends. */
  | { readonly kind: 'leased'; readonly owner: string; readonly retryAfterMs: number }
  /** Dropped, or tombstoned in the claim's own transaction: nothing for the platform to do. */
  | { readonly kind: 'settled'; readonly decision: SettledDecision }
  /** The effect is recorded as the intent under this lease; make it, then complete. */
  | {
      readonly kind: 'claimed';
      readonly lease: PromptLease;
      readonly target: PromptTarget;
      readonly decision: EffectDecision;
      /**
       * R3: a post of this prompt may be on the platform untracked, set out on at this time
       * (recordStrayPost); the effect that clears the prompt clears that post too.
       */
      readonly straySince?: Date;
    }
  /**
   * A post was set out on and never journaled (a crash, or a timeout the platform may have
   * accepted). Nothing else is decided until it is looked for: complete with the post it
   * finds, or with nothing, then claim again.
   */
  | {
      readonly kind: 'unfinished_post';
      readonly lease: PromptLease;
      readonly target: PromptTarget;
      readonly intent: PostDecision;
      /** When the post was first set out on: how far back to look, and how long it has waited. */
      readonly since: Date;
    };

/** Where a prompt lives, found from the opaque reference its buttons carry. */
export interface PromptAddress {
  readonly key: PromptKey;
  readonly conversation: Conversation;
  readonly promptRef: string;
  /** A sub-agent's prompt: its answer names the agent too, which ties it to its session. */
  readonly agent?: ToolInteractionRequest['agent'];
  /** D7: the trace of the output that brought the prompt, which a click on it continues. */
  readonly traceparent?: string;
  /** G1: the members of the prompt's approver groups, resolved when it was posted, by group id. */
  readonly approverMembers?: ApproverMembers;
}

/** Group id → the platform user ids of its members. */
export type ApproverMembers = Readonly<Record<string, readonly string[]>>;

/** A prompt as the journal holds it, with the nonce of the post it tracks (if any). */
export interface JournaledPrompt extends PromptAddress {
  readonly state: PromptState;
  readonly postNonce?: string;
}

/** A prompt the journal shows as posted and awaiting an answer. */
export interface PendingPrompt extends PromptAddress {
  readonly request: ToolInteractionRequest;
  readonly messageRef: MessageRef;
}

/**
 * The binding's prompt journal and its projection (docs/architecture.md §4.1). Every method is one
 * short transaction; the platform is never called while one is open.
 */
export interface PromptJournal {
  /**
   * Creates the prompt's row if missing, locks it, and unless another handler holds it,
   * decides from its state: drops and tombstones are settled here, effects leave an intent.
   * `decide` must not return a notice: a notice changes no prompt and is never claimed.
   */
  claim(
    request: PromptClaimRequest,
    decide: (state: PromptState) => PromptDecision,
  ): Promise<PromptClaim>;
  /**
   * Appends `events`, folds them into the projection and ends the lease and its intent.
   * False, with nothing written, when the lease was lost meanwhile.
   */
  complete(lease: PromptLease, events: readonly PromptEvent[]): Promise<boolean>;
  /**
   * Ends the lease after a failed effect so a retry need not wait it out. The intent stays:
   * a post that failed may still have reached the platform.
   */
  /**
   * Ends the lease; with `holdMs`, keeps it that much longer instead (a call that may still
   * land at the platform holds its prompt until it could have).
   */
  release(lease: PromptLease, holdMs?: number): Promise<void>;
  /**
   * R3: the unfinished post this lease settles as never posted may have landed after all (its
   * look failed, not found nothing): remembers when it was set out on, so the output that
   * clears the prompt looks for it again. The earliest such time is kept.
   */
  recordStrayPost(lease: PromptLease, since: Date): Promise<void>;
  /**
   * G1: journals the approver groups' members just resolved for the post this lease is about
   * to make; a later post of the prompt (never an edit) resolves and replaces them.
   */
  recordApproverMembers(lease: PromptLease, members: ApproverMembers): Promise<void>;
  /** The prompt's state, without creating or locking anything. */
  stateOf(key: PromptKey): Promise<PromptState>;
  findByRef(promptRef: string): Promise<PromptAddress | undefined>;
  /** The prompt's row, or undefined when the journal never held it; creates nothing. */
  findByKey(key: PromptKey): Promise<JournaledPrompt | undefined>;
  /**
   * The session's prompts that are pending, oldest request first (a typed answer is matched
   * against them, docs/protocol.md §1.3), and, given the conversation, its sub-agents' pending
   * prompts shown there (§1.4). A prompt the session has cleared but whose clearing output the
   * binding has not handled yet is still among them.
   */
  pendingIn(sessionId: string, conversation?: Conversation): Promise<PendingPrompt[]>;
  /**
   * A2: the approval API's pending prompts in this conversation (agent sessions, routed there
   * by approval-api) that name `personId` among their approvers, oldest request first.
   */
  pendingApprovalsFor(conversation: Conversation, personId: string): Promise<PendingPrompt[]>;
}
