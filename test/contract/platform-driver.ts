import type { Conversation, Person, Platform } from '@tollgate/protocol';

/** A prompt by its key (docs/protocol.md §1): the session and the call. */
export interface PromptKeyOf {
  readonly sessionId: string;
  readonly callId: string;
}

/** What a tampered button names instead of what it was posted with (X7). */
export interface ButtonTamper {
  /** Another option than the button's own. */
  readonly optionKey?: string;
  /** Another prompt than the button's own, e.g. one of another platform's sessions. */
  readonly prompt?: PromptKeyOf;
}

/** A chat message as every platform's fake shows it, normalized for the contract suite. */
export interface ChatMessageView {
  readonly channelId: string;
  readonly messageId: string;
  /** Everything a person would read: text, sections, banners, attachments. */
  readonly text: string;
  readonly buttons: readonly ChatButton[];
  /** Successful edits so far. */
  readonly edits: number;
}

export interface ChatButton {
  readonly label: string;
  readonly style: 'primary' | 'danger' | 'default';
  /** Whatever the click will send back (the binding's own encoding). */
  readonly raw: unknown;
}

export interface PrivateNotice {
  readonly userId: string;
  readonly text: string;
}

export type Signing = 'valid' | 'forged' | 'stale';

/** G2: an "Edit & approve" form as the platform opened it, prefilled. */
export interface EditFormView {
  readonly fields: readonly {
    readonly label: string;
    readonly value: string;
    readonly hint?: string;
  }[];
  /** Whatever the driver needs to submit it. */
  readonly raw: unknown;
}

/** How the platform's API fails a call (B12–B14); each driver maps these onto its fake. */
export type PlatformFault =
  /** A 5xx: nothing applied. */
  | { readonly kind: 'server_error' }
  /** A 429 with Retry-After: nothing applied. */
  | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number }
  /** The call hangs, is never applied, and the client gives up. */
  | { readonly kind: 'timeout' }
  /** The platform applies the call but never answers, so the client gives up. */
  | { readonly kind: 'accept_then_timeout' }
  /** Refused on purpose: an error no retry can fix (a 4xx, `channel_not_found`, …). */
  | { readonly kind: 'refused' };

/**
 * The calls a fault or a count can single out: a new message, an edit, reading the
 * conversation back (the look for a post that got no answer, R3), or any call at all.
 */
export type PlatformCall = 'post' | 'edit' | 'read' | 'any';

export interface CallScope {
  /** Only calls about this conversation. */
  readonly conversation?: Conversation;
  /** Only calls from the binding process started with `bindingEnv(replica)`. */
  readonly replica?: string;
}

/**
 * What the contract suite needs of one platform: its API fake, the binding's environment
 * for it, and signed inbound requests as the platform would send them.
 */
export interface PlatformDriver {
  readonly platform: Platform;
  /** Starts the fake, on `port` when given (external mode: the binding was pointed at it). */
  start(options?: { port?: number }): Promise<void>;
  stop(): Promise<void>;
  /**
   * The binding's platform variables (API URL of the fake, tokens, secrets). With `replica`,
   * the process started with them is told apart from the others, so faults can single it out.
   */
  bindingEnv(replica?: string): Record<string, string>;
  /** The next `times` (default 1, may be Infinity) matching calls fail with `fault`. */
  failNext(
    call: PlatformCall,
    fault: PlatformFault,
    scope?: CallScope & { readonly times?: number },
  ): void;
  /** Drops every pending fault; calls already held stay held until their client gives up. */
  clearFaults(): void;
  /** Delays every call's answer (and effect) by `ms`. */
  setLatencyMs(ms: number): void;
  /** When each matching call reached the API (failed ones included), oldest first, epoch ms. */
  callTimes(call: PlatformCall, scope?: CallScope): number[];
  /** A conversation no other test uses, in a channel the fake knows. */
  freshConversation(): Conversation;
  /** Every message posted so far, as it stands now. */
  messages(): ChatMessageView[];
  /** Messages posted in the conversation's channel/thread. */
  messagesIn(conversation: Conversation): ChatMessageView[];
  notices(): PrivateNotice[];
  /**
   * Calls that posted a new message (not edits, not notices); a repeat the platform answers
   * with the message already posted (an idempotency key, e.g. Discord's enforced nonce) is not one.
   */
  postCount(): number;
  /** A click on one button of a message, signed as the platform signs it. */
  click(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
    signing?: Signing,
  ): Promise<Response>;
  /**
   * The button as a click would carry it had it named another option or another prompt: made
   * with the binding's own encoding and, where the platform has the binding sign its buttons
   * (Mattermost), re-signed with the binding's secret, so that only the binding's checks and
   * the session's, not the signature, can refuse the click.
   */
  tamperedButton(button: ChatButton, change: ButtonTamper): ChatButton;
  /**
   * G2: clicks an "Edit & approve" button; `form` is what the platform opened for the clicker
   * (absent when it opened nothing).
   */
  openEditForm?(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
  ): Promise<{ response: Response; form?: EditFormView }>;
  /** G2: submits the form as `clicker`, with new values by field label (others as prefilled). */
  submitEditForm?(
    bindingUrl: string,
    form: EditFormView,
    clicker: Person,
    values: Readonly<Record<string, string>>,
  ): Promise<Response>;
  /** Deletes a message as a person (or a moderator) would: it can no longer be edited (R4). */
  deleteMessage(message: ChatMessageView): void;
  /** `count` messages from someone else in the conversation, newer than anything before (R3). */
  addOthersMessages(conversation: Conversation, count: number): void;
  /** A person writing to the bot in the conversation. */
  say(
    bindingUrl: string,
    conversation: Conversation,
    text: string,
    sender: Person,
    signing?: Signing,
  ): Promise<Response>;
}
