import type {
  ApprovalCount,
  ArgumentsEdit,
  Conversation,
  Person,
  Platform,
  TextRole,
  ToolInteractionRequest,
} from '@tollgate/protocol';
import type { RateBucket } from './pacing/rate-limit-pacer';

/**
 * Where a posted message lives on its platform. Slack: channel + ts; Discord: channel +
 * message id; Mattermost: channel + post id. Stored in the prompt journal as written.
 */
export interface MessageRef {
  readonly channelId: string;
  readonly messageId: string;
}

/**
 * A prompt's post on the platform, with the post nonce it carries where the platform says:
 * a post found, or one a deduplicating platform answered a retry with, may be an earlier
 * attempt's, with that attempt's nonce rather than the latest intent's.
 */
export interface FoundPrompt extends MessageRef {
  readonly postNonce?: string;
}

/**
 * What a prompt should show, whole: renderers rebuild the message from this every time
 * (Mattermost strips button integrations on read, so nothing may be read back and patched).
 * Buttons are shown for `pending` and `refreshed` only.
 */
export type PromptView =
  | { readonly kind: 'pending'; readonly request: ToolInteractionRequest }
  | { readonly kind: 'refreshed'; readonly request: ToolInteractionRequest }
  | {
      readonly kind: 'resolved';
      readonly request: ToolInteractionRequest;
      readonly optionKey: string;
      readonly label: string;
      readonly resolvedBy: Person;
      /** G2: approved with edited arguments: shown as `name: from → to` lines. */
      readonly edit?: ArgumentsEdit;
      /** G1: a prompt with a quorum: every approval (approved), or those a veto overruled. */
      readonly approvals?: readonly ApprovalCount[];
    }
  | {
      readonly kind: 'abandoned';
      readonly request: ToolInteractionRequest;
      readonly reason?: string;
    }
  | {
      readonly kind: 'expired';
      readonly request: ToolInteractionRequest;
      readonly reason?: string;
    };

export type PromptViewKind = PromptView['kind'];

/** A prompt as the platform sees it: its conversation and the opaque reference buttons carry. */
export interface PromptTarget {
  readonly conversation: Conversation;
  /**
   * Opaque, letters and digits only, at most 32 characters: it fits every platform's button
   * id limit (Mattermost allows only [A-Za-z0-9]); the binding resolves it via its journal.
   */
  readonly promptRef: string;
  /**
   * 32 hex characters from 128 random bits, new for every post of the prompt and kept while
   * that post is edited in place; the journal holds the one of the post it tracks. A platform
   * that must authenticate clicks itself (Mattermost signs nothing) binds its buttons to it;
   * others ignore it. Absent only where nothing is posted or edited.
   */
  readonly postNonce?: string;
  /**
   * Names this post to a platform that deduplicates retried posts (Mattermost's
   * `pending_post_id`): absent, the prompt's own post, named by its `promptRef`; a repost
   * that replaces a message gives its own, so it is not taken for the post it replaces.
   */
  readonly idempotencyKey?: string;
}

/** A call the core is about to make, for pacing: which buckets it draws on. */
export interface PacedCall {
  readonly effect: 'post_prompt' | 'edit_prompt' | 'send_notice' | 'post_text';
  readonly conversation: Conversation;
  /** The message an edit changes. */
  readonly ref?: MessageRef;
}

/** How the core should treat a failed platform call. */
export type PlatformFailure =
  | {
      readonly kind: 'transient';
      readonly reason: string;
      readonly retryAfterMs?: number;
      /**
       * The call ended without the platform's answer (a timeout, a connection dropped after
       * the request went out): the platform may still carry it out.
       */
      readonly unanswered?: boolean;
    }
  | {
      readonly kind: 'permanent';
      readonly reason: string;
      /**
       * The platform's own error as `ToolInteractionUndeliverable.reason` carries it
       * (docs/protocol.md §4): Slack's `error` string, Discord `<http status>:<error code>`,
       * Mattermost `<http status>:<error id>`. Absent when the platform gave none.
       */
      readonly platformCode?: string;
    };

/**
 * The one thing that differs between bindings. Every call is made with the SDK's own
 * retries off: the core retries through JetStream, honouring `retryAfterMs`.
 */
export interface PlatformAdapter {
  readonly platform: Platform;
  postPrompt(target: PromptTarget, view: PromptView): Promise<FoundPrompt>;
  editPrompt(target: PromptTarget, ref: MessageRef, view: PromptView): Promise<void>;
  /** Shown only to `to` (Slack ephemeral, Discord ephemeral follow-up, Mattermost ephemeral post). */
  sendNotice(
    conversation: Conversation,
    to: Person,
    text: string,
    near?: MessageRef,
  ): Promise<void>;
  /**
   * A reply in the conversation; `outputId` lets a retry find a post that timed out. `mention`
   * (a reminder's requester) is shown first as the platform's real mention, so it notifies
   * them; the text itself stays inert.
   */
  postText(
    conversation: Conversation,
    text: string,
    role: TextRole,
    outputId: string,
    mention?: Person,
  ): Promise<MessageRef>;
  /**
   * Finds a prompt already posted for this target (a post that timed out after the platform
   * accepted it), so a retry edits it instead of posting twice. Undefined when not found.
   * `since` is when the post was set out on: the adapter reads the conversation back to that
   * time (with a margin for clocks), however many messages came after, never by a fixed
   * number of pages. With `except`, a post of the prompt other than that one (R3: a post that
   * landed untracked beside the one the journal tracks).
   */
  findPostedPrompt?(
    target: PromptTarget,
    since: Date,
    except?: MessageRef,
  ): Promise<FoundPrompt | undefined>;
  /**
   * Finds a text already posted for this output (a `postText` that timed out after the
   * platform accepted it), so a retry adopts it instead of posting the reply twice. Asked only
   * when an earlier attempt set out and never finished. Undefined when not found.
   */
  findPostedText?(conversation: Conversation, outputId: string): Promise<MessageRef | undefined>;
  /**
   * G1: the user ids of a platform group named as a prompt's approvers (a Slack user group, a
   * Discord role in the conversation's guild, a Mattermost group), read when the prompt is
   * posted; at most `MAX_GROUP_MEMBERS`. A platform without groups leaves it out, and a prompt
   * naming a group is then undeliverable there.
   */
  resolveApproverGroup?(conversation: Conversation, groupId: string): Promise<readonly string[]>;
  classifyFailure(error: unknown): PlatformFailure;
  /**
   * The platform's rate-limit buckets a call draws on, so the core paces calls before the
   * platform refuses them. None: the call is not paced.
   */
  rateBuckets?(call: PacedCall): readonly RateBucket[];
}

export const PLATFORM_ADAPTER = Symbol('PLATFORM_ADAPTER');
