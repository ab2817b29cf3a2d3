import type { MessageRef, PlatformAdapter, PromptTarget, PromptView } from '@tollgate/binding-core';
import type { Conversation, Person, TextRole } from '@tollgate/protocol';
import { LogLevel, WebClient } from '@slack/web-api';
import { renderSlackPrompt } from '../rendering/slack-prompt.renderer';
import { classifySlackFailure } from './slack-failure.classifier';
import { SlackPostedMessageFinder } from './slack-posted-message.finder';

/** Message metadata event types: a retry finds what it may already have posted by these. */
export const PROMPT_METADATA_TYPE = 'tollgate_prompt';
export const TEXT_METADATA_TYPE = 'tollgate_text';
const TEXT_LIMIT = 40_000;
/** Below this even a healthy Slack would time out now and then. */
const MIN_CALL_TIMEOUT_MS = 250;

export interface SlackAdapterOptions {
  token: string;
  apiUrl: string;
  /**
   * A call that takes longer is abandoned and retried through JetStream (a post first looks
   * for what the abandoned one may have left). See {@link slackCallTimeoutMs}.
   */
  timeoutMs: number;
}

/**
 * Slack through the official WebClient with its own retries off: JetStream redelivery does
 * the retrying, so a slow Slack never holds a consumer slot for 30 minutes. Posts carry
 * metadata naming what they show, so a retry finds a post that timed out after Slack took it.
 */
export class SlackPlatformAdapter implements PlatformAdapter {
  readonly platform = 'slack' as const;
  private readonly client: WebClient;
  private readonly finder: SlackPostedMessageFinder;

  constructor(options: SlackAdapterOptions) {
    this.client = new WebClient(options.token, {
      slackApiUrl: options.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: options.timeoutMs,
      // Its own plain-text warnings would break the JSON logs; the core logs every failure.
      logLevel: LogLevel.ERROR,
    });
    this.finder = new SlackPostedMessageFinder(this.client);
  }

  async postPrompt(target: PromptTarget, view: PromptView): Promise<MessageRef> {
    const message = renderSlackPrompt(view, target.promptRef);
    const result = await this.client.chat.postMessage({
      channel: target.conversation.channelId,
      ...threadOf(target.conversation),
      text: message.text,
      blocks: [...message.blocks],
      metadata: {
        event_type: PROMPT_METADATA_TYPE,
        event_payload: { promptRef: target.promptRef },
      },
    });
    return {
      channelId: result.channel ?? target.conversation.channelId,
      messageId: result.ts ?? '',
    };
  }

  async editPrompt(target: PromptTarget, ref: MessageRef, view: PromptView): Promise<void> {
    const message = renderSlackPrompt(view, target.promptRef);
    await this.client.chat.update({
      channel: ref.channelId,
      ts: ref.messageId,
      text: message.text,
      blocks: [...message.blocks],
    });
  }

  async sendNotice(conversation: Conversation, to: Person, text: string): Promise<void> {
    await this.client.chat.postEphemeral({
      channel: conversation.channelId,
      user: to.id,
      text,
      ...threadOf(conversation),
    });
  }

  async postText(
    conversation: Conversation,
    text: string,
    _role: TextRole,
    outputId: string,
  ): Promise<MessageRef> {
    const result = await this.client.chat.postMessage({
      channel: conversation.channelId,
      ...threadOf(conversation),
      text: text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT - 1)}…` : text,
      metadata: { event_type: TEXT_METADATA_TYPE, event_payload: { outputId } },
    });
    return { channelId: result.channel ?? conversation.channelId, messageId: result.ts ?? '' };
  }

  findPostedPrompt(target: PromptTarget): Promise<MessageRef | undefined> {
    return this.finder.find(target.conversation, {
      eventType: PROMPT_METADATA_TYPE,
      field: 'promptRef',
      value: target.promptRef,
    });
  }

  findPostedText(conversation: Conversation, outputId: string): Promise<MessageRef | undefined> {
    return this.finder.find(conversation, {
      eventType: TEXT_METADATA_TYPE,
      field: 'outputId',
      value: outputId,
    });
  }

  classifyFailure(error: unknown) {
    return classifySlackFailure(error);
  }
}

/**
 * How long one Slack call may take. It must end well inside the prompt's lease (2 × ack_wait),
 * or another replica could take the prompt over while the call may still land; a third of
 * ack_wait keeps a hung call from holding its message anywhere near ack_wait (the runner's
 * working() extends it meanwhile, so it is not redelivered). It must also end inside the
 * shutdown drain, so a stopping replica settles, and releases the lease of, every message it
 * holds instead of leaving a prompt leased to a process that is gone.
 */
export function slackCallTimeoutMs(settings: {
  requestedMs: number;
  ackWaitMs: number;
  drainMs: number;
}): number {
  const { requestedMs, ackWaitMs, drainMs } = settings;
  // A zero drain hands every message back at once: no timeout can help it.
  const drainBound = drainMs > 0 ? Math.floor(drainMs / 2) : Infinity;
  return Math.max(
    MIN_CALL_TIMEOUT_MS,
    Math.min(requestedMs, Math.floor(ackWaitMs / 3), drainBound),
  );
}

function threadOf(conversation: Conversation): { thread_ts?: string } {
  return conversation.threadId ? { thread_ts: conversation.threadId } : {};
}
