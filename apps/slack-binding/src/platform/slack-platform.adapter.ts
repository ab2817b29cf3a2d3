import {
  type MessageRef,
  type PacedCall,
  type PlatformAdapter,
  platformSafe,
  type PromptTarget,
  type PromptView,
  type RateBucket,
} from '@tollgate/binding-core';
import { agentFetch } from '@tollgate/service-runtime';
import type { Conversation, Person, TextRole } from '@tollgate/protocol';
import { LogLevel, WebClient, type ChatPostMessageResponse } from '@slack/web-api';
import { renderSlackPrompt, renderSlackText } from '../rendering/slack-prompt.renderer';
import { classifySlackFailure } from './slack-failure.classifier';
import { formFields } from './slack-form-fields';
import { SlackPostedMessageFinder } from './slack-posted-message.finder';

/** Message metadata event types: a retry finds what it may already have posted by these. */
export const PROMPT_METADATA_TYPE = 'tollgate_prompt';
export const TEXT_METADATA_TYPE = 'tollgate_text';
const TEXT_LIMIT = 40_000;
/** Below this even a healthy Slack would time out now and then. */

export interface SlackAdapterOptions {
  token: string;
  apiUrl: string;
  /**
   * A call that takes longer is abandoned and retried through JetStream (a post first looks
   * for what the abandoned one may have left). See platformCallTimeoutMs in @tollgate/binding-core.
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
      // node:http over a keep-alive Agent: fetch cost more CPU than the rest of an output (D6).
      fetch: agentFetch(),
    });
    this.finder = new SlackPostedMessageFinder(this.client);
  }

  async postPrompt(target: PromptTarget, view: PromptView): Promise<MessageRef> {
    const message = renderSlackPrompt(view, target.promptRef);
    const result = (await this.client.apiCall(
      'chat.postMessage',
      formFields(
        platformSafe({
          channel: target.conversation.channelId,
          ...threadOf(target.conversation),
          text: message.text,
          blocks: message.blocks,
          metadata: {
            event_type: PROMPT_METADATA_TYPE,
            event_payload: { promptRef: target.promptRef },
          },
        }),
      ),
    )) as ChatPostMessageResponse;
    return {
      channelId: result.channel ?? target.conversation.channelId,
      messageId: result.ts ?? '',
    };
  }

  async editPrompt(target: PromptTarget, ref: MessageRef, view: PromptView): Promise<void> {
    const message = renderSlackPrompt(view, target.promptRef);
    await this.client.apiCall(
      'chat.update',
      formFields(
        platformSafe({
          channel: ref.channelId,
          ts: ref.messageId,
          text: message.text,
          blocks: message.blocks,
        }),
      ),
    );
  }

  /** G1: a user group's members (`usergroups.users.list`, scope `usergroups:read`). */
  async resolveApproverGroup(conversation: Conversation, groupId: string): Promise<string[]> {
    const result = await this.client.usergroups.users.list({
      usergroup: groupId,
      team_id: conversation.workspaceId,
    });
    return result.users ?? [];
  }

  async sendNotice(conversation: Conversation, to: Person, text: string): Promise<void> {
    await this.client.chat.postEphemeral(
      platformSafe({
        channel: conversation.channelId,
        user: to.id,
        text: renderSlackText(text),
        ...threadOf(conversation),
      }),
    );
  }

  async postText(
    conversation: Conversation,
    text: string,
    _role: TextRole,
    outputId: string,
    mention?: Person,
  ): Promise<MessageRef> {
    const result = await this.client.chat.postMessage(
      platformSafe({
        channel: conversation.channelId,
        ...threadOf(conversation),
        text: truncate(renderSlackText(text, mention)),
        metadata: { event_type: TEXT_METADATA_TYPE, event_payload: { outputId } },
      }),
    );
    return { channelId: result.channel ?? conversation.channelId, messageId: result.ts ?? '' };
  }

  findPostedPrompt(
    target: PromptTarget,
    since: Date,
    except?: MessageRef,
  ): Promise<MessageRef | undefined> {
    return this.finder.find(
      target.conversation,
      { eventType: PROMPT_METADATA_TYPE, field: 'promptRef', value: target.promptRef },
      since,
      except?.messageId,
    );
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

  /**
   * Slack limits each method per workspace: chat.update is Tier 3 (about 50 a minute),
   * chat.postEphemeral Tier 4 (about 100), and chat.postMessage about one a second per channel
   * with short bursts.
   */
  rateBuckets(call: PacedCall): readonly RateBucket[] {
    const team = call.conversation.workspaceId;
    switch (call.effect) {
      case 'edit_prompt':
        return [{ key: `slack:${team}:chat.update`, limit: 50, windowMs: 60_000 }];
      case 'send_notice':
        return [{ key: `slack:${team}:chat.postEphemeral`, limit: 100, windowMs: 60_000 }];
      case 'post_prompt':
      case 'post_text':
        return [
          {
            key: `slack:${team}:chat.postMessage:${call.conversation.channelId}`,
            limit: 5,
            windowMs: 5_000,
          },
        ];
    }
  }
}

function threadOf(conversation: Conversation): { thread_ts?: string } {
  return conversation.threadId ? { thread_ts: conversation.threadId } : {};
}

/** Cut after escaping: a cut entity (`&am…`) shows as text, never as a control character. */
function truncate(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT - 1)}…` : text;
}
