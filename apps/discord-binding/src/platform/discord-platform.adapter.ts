import { createHash } from 'node:crypto';
import {
  type MessageRef,
  type PacedCall,
  type PlatformAdapter,
  platformSafe,
  type PromptTarget,
  type PromptView,
  type RateBucket,
} from '@tollgate/binding-core';
import { agentFetch, type FetchLike } from '@tollgate/service-runtime';
import {
  type Conversation,
  MAX_GROUP_MEMBERS,
  type Person,
  type TextRole,
} from '@tollgate/protocol';
import { DiscordAPIError, REST, type RESTOptions } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import {
  CONTENT_LIMIT,
  CUSTOM_ID_PREFIX,
  mention,
  renderDiscordPrompt,
  renderDiscordText,
} from '../rendering/discord-prompt.renderer';
import { classifyDiscordFailure } from './discord-failure.classifier';
import { findOwnMessage, type PostedMessage } from './discord-own-messages';
import type { InteractionTokens } from './interaction-token.repository';

/** Discord honours an interaction token for 15 minutes; a notice keeps a margin. */
export const NOTICE_TOKEN_MAX_AGE_MS = 14 * 60_000;
/** G1: List Guild Members' largest page, and how many pages a role's members are looked for in. */
const MEMBERS_PAGE = 1_000;
const MAX_MEMBER_PAGES = 10;
const EPHEMERAL = 1 << 6;

export interface DiscordAdapterOptions {
  token: string;
  apiUrl: string;
  applicationId: string;
  timeoutMs: number;
  /**
   * The REST client's own global limit (Discord's 50 a second by default). The core's pacer
   * keeps calls under it; scaled with the pacer's windows where tests and benches scale them.
   */
  globalRequestsPerSecond?: number;
  tokens: InteractionTokens;
}

/**
 * Discord through the official REST client with its own retries off (JetStream redelivery
 * does the retrying) and 429s thrown rather than slept on. Every post carries a nonce with
 * `enforce_nonce`, so a retry of a post Discord took returns that same message instead of a
 * second one. That is how a text is reconciled (there is no `findPostedText`: Discord does not
 * return the nonce when messages are read back); a prompt is also found by its buttons, so it
 * is adopted even after Discord's nonce window of a few minutes has passed.
 */
export class DiscordPlatformAdapter implements PlatformAdapter {
  readonly platform = 'discord' as const;
  private readonly rest: REST;

  constructor(private readonly options: DiscordAdapterOptions) {
    this.rest = new REST({
      api: options.apiUrl,
      version: '10',
      retries: 0,
      timeout: options.timeoutMs,
      ...(options.globalRequestsPerSecond === undefined
        ? {}
        : { globalRequestsPerSecond: options.globalRequestsPerSecond }),
      rejectOnRateLimit: () => true,
      // node:http over a keep-alive Agent, as every binding's platform calls (D6).
      makeRequest: viaAgent(agentFetch()),
    }).setToken(options.token);
  }

  async postPrompt(target: PromptTarget, view: PromptView): Promise<MessageRef> {
    const message = renderDiscordPrompt(view, target.promptRef);
    const posted = (await this.rest.post(Routes.channelMessages(target.conversation.channelId), {
      body: platformSafe({ ...message, nonce: promptNonce(target.promptRef), enforce_nonce: true }),
    })) as PostedMessage;
    return { channelId: posted.channel_id, messageId: posted.id };
  }

  async editPrompt(target: PromptTarget, ref: MessageRef, view: PromptView): Promise<void> {
    const message = renderDiscordPrompt(view, target.promptRef);
    await this.rest.patch(Routes.channelMessage(ref.channelId, ref.messageId), {
      body: platformSafe(message),
    });
  }

  /**
   * G1: the guild's members who have the role (List Guild Members, 1,000 a page in user id
   * order, filtered by role; the app needs the GUILD_MEMBERS intent). Stops at
   * MAX_GROUP_MEMBERS found or pages read, so a huge guild cannot hold the post for long.
   */
  async resolveApproverGroup(conversation: Conversation, roleId: string): Promise<string[]> {
    const found: string[] = [];
    let after = '0';
    for (let page = 0; page < MAX_MEMBER_PAGES && found.length < MAX_GROUP_MEMBERS; page += 1) {
      const members = (await this.rest.get(Routes.guildMembers(conversation.workspaceId), {
        query: new URLSearchParams({ limit: String(MEMBERS_PAGE), after }),
      })) as { user?: { id: string }; roles: string[] }[];
      for (const member of members) {
        if (member.user && member.roles.includes(roleId)) found.push(member.user.id);
      }
      const last = members.at(-1)?.user?.id;
      if (members.length < MEMBERS_PAGE || last === undefined) break;
      after = last;
    }
    return found.slice(0, MAX_GROUP_MEMBERS);
  }

  /**
   * An ephemeral follow-up on the person's latest interaction in that channel while its token
   * is young enough; otherwise (or if Discord no longer takes the token) a direct message.
   */
  async sendNotice(conversation: Conversation, to: Person, text: string): Promise<void> {
    const content = contentOf(text);
    const token = await this.options.tokens.latest(
      to.id,
      conversation.channelId,
      NOTICE_TOKEN_MAX_AGE_MS,
    );
    if (token !== undefined) {
      try {
        await this.rest.post(Routes.webhook(this.options.applicationId, token), {
          body: platformSafe({ content, flags: EPHEMERAL, allowed_mentions: { parse: [] } }),
          auth: false,
        });
        return;
      } catch (error) {
        // An expired or unknown token is no reason to keep the notice from its reader.
        if (!(error instanceof DiscordAPIError) || error.status >= 500) throw error;
      }
    }
    const dm = (await this.rest.post(Routes.userChannels(), {
      body: { recipient_id: to.id },
    })) as { id: string };
    await this.rest.post(Routes.channelMessages(dm.id), {
      body: platformSafe({ content, allowed_mentions: { parse: [] } }),
    });
  }

  async postText(
    conversation: Conversation,
    text: string,
    _role: TextRole,
    outputId: string,
    addressee?: Person,
  ): Promise<MessageRef> {
    const posted = (await this.rest.post(Routes.channelMessages(conversation.channelId), {
      body: platformSafe({
        content: addressee
          ? truncate(`${mention(addressee)} ${renderDiscordText(text)}`)
          : contentOf(text),
        nonce: textNonce(outputId),
        enforce_nonce: true,
        // Only the person Tollgate addresses is notified; nothing in the text can ping.
        allowed_mentions: { parse: [], users: mentionedUsers(addressee) },
      }),
    })) as PostedMessage;
    return { channelId: posted.channel_id, messageId: posted.id };
  }

  /**
   * The bot's own message, posted since `since`, whose buttons carry the prompt's reference.
   * Read forward from a snowflake of that time, page by page, so a busy channel cannot push
   * the post out of reach (R3).
   */
  async findPostedPrompt(
    target: PromptTarget,
    since: Date,
    except?: MessageRef,
  ): Promise<MessageRef | undefined> {
    const suffix = `:${target.promptRef}`;
    const { applicationId } = this.options;
    const channelId = target.conversation.channelId;
    return findOwnMessage(
      this.rest,
      applicationId,
      channelId,
      since,
      (message) =>
        message.id !== except?.messageId &&
        (message.components ?? []).some((row) =>
          (row.components ?? []).some(
            (c) => c.custom_id?.startsWith(CUSTOM_ID_PREFIX) && c.custom_id.endsWith(suffix),
          ),
        ),
    );
  }

  classifyFailure(error: unknown) {
    return classifyDiscordFailure(error);
  }

  /**
   * Discord limits each route per major parameter (the channel: 5 per 5 s for posting and for
   * editing messages) and every bot globally (50 requests a second).
   */
  rateBuckets(call: PacedCall): readonly RateBucket[] {
    const channel = call.ref?.channelId ?? call.conversation.channelId;
    const route =
      call.effect === 'edit_prompt'
        ? `PATCH channels/${channel}/messages/:id`
        : call.effect === 'send_notice'
          ? `notice ${channel}`
          : `POST channels/${channel}/messages`;
    return [
      { key: 'discord:global', limit: 50, windowMs: 1_000, notBlockedBy429: true },
      { key: `discord:${route}`, limit: 5, windowMs: 5_000 },
    ];
  }

  /** Keeps a person's latest interaction token, for the notices answering it. */
  rememberInteraction(userId: string, channelId: string, token: string): Promise<void> {
    return this.options.tokens.remember(userId, channelId, token, new Date());
  }

  /** Replaces the deferred response (`/ask`'s "thinking…") with `text`. */
  async editOriginalResponse(token: string, text: string): Promise<void> {
    await this.rest.patch(Routes.webhookMessage(this.options.applicationId, token, '@original'), {
      body: platformSafe({ content: truncate(text), allowed_mentions: { parse: [] } }),
      auth: false,
    });
  }

  /** A message only the interaction's person sees. */
  async ephemeralFollowUp(token: string, text: string): Promise<void> {
    await this.rest.post(Routes.webhook(this.options.applicationId, token), {
      body: platformSafe({
        content: truncate(text),
        flags: EPHEMERAL,
        allowed_mentions: { parse: [] },
      }),
      auth: false,
    });
  }
}

/** Nonces are at most 25 characters; prompt refs are ≤ 32 letters and digits. */
export function promptNonce(promptRef: string): string {
  return promptRef.length <= 24 ? `p${promptRef}` : `p${digest(promptRef)}`;
}

/** Output ids (`<sessionId>:<seq>:<n>`) are long: a digest of one fits the nonce. */
export function textNonce(outputId: string): string {
  return `t${digest(outputId)}`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 24);
}

/** A snowflake is a real Discord user, whom `allowed_mentions` may let the post notify. */
function mentionedUsers(addressee: Person | undefined): string[] {
  return addressee && /^\d{1,20}$/.test(addressee.id) ? [addressee.id] : [];
}

/** Text from the session (a reply, a notice) as content: inert first, then cut to fit. */
function contentOf(text: string): string {
  return truncate(renderDiscordText(text));
}

function truncate(text: string): string {
  return text.length <= CONTENT_LIMIT ? text : `${text.slice(0, CONTENT_LIMIT - 1)}…`;
}

/** @discordjs/rest's request strategy over {@link agentFetch}: its init is undici's RequestInit. */
function viaAgent(send: FetchLike): RESTOptions['makeRequest'] {
  return (url, init) => send(url, init);
}
