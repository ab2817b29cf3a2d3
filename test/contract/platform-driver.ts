import type { Conversation, Person, Platform } from '@tollgate/protocol';

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

/**
 * What the contract suite needs of one platform: its API fake, the binding's environment
 * for it, and signed inbound requests as the platform would send them.
 */
export interface PlatformDriver {
  readonly platform: Platform;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The binding's platform variables (API URL of the fake, tokens, secrets). */
  bindingEnv(): Record<string, string>;
  /** A conversation no other test uses, in a channel the fake knows. */
  freshConversation(): Conversation;
  /** Every message posted so far, as it stands now. */
  messages(): ChatMessageView[];
  /** Messages posted in the conversation's channel/thread. */
  messagesIn(conversation: Conversation): ChatMessageView[];
  notices(): PrivateNotice[];
  /** Calls that posted a new message (not edits, not notices). */
  postCount(): number;
  /** A click on one button of a message, signed as the platform signs it. */
  click(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
    signing?: Signing,
  ): Promise<Response>;
  /** A person writing to the bot in the conversation. */
  say(
    bindingUrl: string,
    conversation: Conversation,
    text: string,
    sender: Person,
    signing?: Signing,
  ): Promise<Response>;
}
