import { checkDiscordModal, type FakeDiscordModal } from './discord-modals.fake';
import type { DiscordInteractionIssue } from './discord-api.types';
import { readContent, type Result } from './discord-api.readers';
import type { DiscordMessageStore } from './discord-message-store';

/**
 * The Discord stand-in's interaction side: the tokens issued to the binding, the responses
 * (`@original`) and follow-ups sent on them, and the modals and ephemeral answers shown.
 * Apart from the channel messages because these routes are authorized by the interaction's
 * token, not the bot's, and reach a person rather than a channel; they write their notices
 * and take their ids through the message store.
 */

const EPHEMERAL = 1 << 6;

export class DiscordInteractionRoutes {
  // Not private: DiscordApiFake snapshots, restores and resets them.
  originals = new Map<string, { content: string; edits: number }>();
  followups: Array<{ token: string; content: string; flags: number; at: Date }> = [];
  interactions = new Map<string, DiscordInteractionIssue>();
  modalLog: FakeDiscordModal[] = [];

  constructor(private readonly messages: DiscordMessageStore) {}

  /** Clears interactions, their responses, follow-ups and modals. */
  reset(): void {
    this.originals = new Map();
    this.followups = [];
    this.interactions = new Map();
    this.modalLog = [];
  }

  issueInteraction(issue: DiscordInteractionIssue): void {
    this.interactions.set(issue.token, issue);
  }

  showEphemeralResponse(userId: string, content: string, channelId?: string): void {
    this.messages.noticeLog.push({
      userId,
      content,
      via: 'ephemeral_response',
      ...(channelId === undefined ? {} : { channelId }),
      at: new Date(),
    });
  }

  showModal(
    userId: string,
    channelId: string,
    data: unknown,
    messageId?: string,
  ): FakeDiscordModal {
    const checked = checkDiscordModal(data);
    if (typeof checked === 'string') throw new Error(`Discord refuses the modal: ${checked}`);
    const modal: FakeDiscordModal = {
      ...checked,
      userId,
      channelId,
      ...(messageId === undefined ? {} : { messageId }),
    };
    this.modalLog.push(modal);
    return structuredClone(modal);
  }

  /** Every modal shown so far, oldest first. */
  get modals(): FakeDiscordModal[] {
    return structuredClone(this.modalLog);
  }

  /** What an interaction's `@original` response says now (e.g. the /ask acknowledgement). */
  original(token: string): { content: string; edits: number } | undefined {
    const found = this.originals.get(token);
    return found && { ...found };
  }

  createFollowup(token: string, body: Record<string, unknown>): Result {
    const content = readContent(body, true);
    if ('status' in content) return content;
    const issued = this.interactions.get(token);
    if (!issued) return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    const flags = Number(body.flags ?? 0);
    const at = new Date();
    this.followups.push({ token, content: content.content ?? '', flags, at });
    if ((flags & EPHEMERAL) !== 0) {
      this.messages.noticeLog.push({
        userId: issued.userId,
        content: content.content ?? '',
        via: 'ephemeral_followup',
        ...(issued.channelId === undefined ? {} : { channelId: issued.channelId }),
        at,
      });
    }
    return {
      status: 200,
      body: {
        id: this.messages.nextId(),
        channel_id: issued.channelId ?? '',
        content: content.content ?? '',
        components: content.components ?? [],
        flags,
        author: this.messages.author(),
        type: 0,
      },
    };
  }

  editOriginal(token: string, body: Record<string, unknown>): Result {
    const content = readContent(body, false);
    if ('status' in content) return content;
    const issued = this.interactions.get(token);
    if (!issued) return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
    const original = this.originals.get(token) ?? { content: '', edits: 0 };
    original.content = content.content ?? original.content;
    original.edits += 1;
    this.originals.set(token, original);
    return {
      status: 200,
      body: {
        id: this.messages.nextId(),
        channel_id: issued.channelId ?? '',
        content: original.content,
        components: [],
        author: this.messages.author(),
        type: 20,
      },
    };
  }
}
