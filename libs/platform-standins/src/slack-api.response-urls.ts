// The response_url a click on a message carries: issued by the Slack stand-in, and what Slack
// does with what is posted to it (an ephemeral to the clicker, 5 uses within 30 minutes).
// Separate from the Web API methods because it is another route with its own grants and errors.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendText } from './slack-api.http';
import type { SlackMessageStore } from './slack-api.messages';

/** Slack lets a click's response_url be used 5 times within 30 minutes. */
const RESPONSE_URL_USES = 5;
const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

/** Who and where a click's response_url answers, and how much of it is left. */
interface ResponseUrlGrant {
  readonly channel: string;
  readonly user: string;
  readonly threadTs: string | undefined;
  readonly expiresAt: number;
  usesLeft: number;
}

export class SlackResponseUrls {
  private readonly grants = new Map<string, ResponseUrlGrant>();

  constructor(private readonly messages: SlackMessageStore) {}

  /**
   * A response_url for a click by `user` on a message in `channel`, on this stand-in's origin;
   * what is posted to it shows as an ephemeral to that user, as Slack's would.
   */
  issue(
    target: { channel: string; user: string; threadTs?: string },
    baseUrl: string | undefined,
  ): string {
    const id = randomBytes(12).toString('hex');
    this.grants.set(id, {
      channel: target.channel,
      user: target.user,
      threadTs: target.threadTs,
      expiresAt: Date.now() + RESPONSE_URL_LIFETIME_MS,
      usesLeft: RESPONSE_URL_USES,
    });
    if (baseUrl === undefined) throw new Error('SlackApiFake: start() before responseUrlFor');
    return `${baseUrl}/actions/${id}`;
  }

  serve(id: string, raw: string, res: ServerResponse): void {
    const grant = this.grants.get(id);
    if (!grant || grant.usesLeft === 0 || grant.expiresAt < Date.now()) {
      sendText(res, 404, 'expired_url');
      return;
    }
    let body: { text?: unknown; response_type?: unknown; replace_original?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      sendText(res, 400, 'invalid_payload');
      return;
    }
    if (typeof body.text !== 'string' || body.text === '') {
      sendText(res, 400, 'no_text');
      return;
    }
    grant.usesLeft -= 1;
    // Only an ephemeral reply that leaves the message alone is modelled; Tollgate sends no other.
    if (body.response_type !== 'ephemeral' || body.replace_original !== false) {
      sendText(res, 400, 'unsupported_by_fake');
      return;
    }
    this.messages.recordEphemeral({
      channel: grant.channel,
      user: grant.user,
      message_ts: this.messages.nextTs(),
      thread_ts: grant.threadTs,
      text: body.text,
      blocks: undefined,
      at: new Date(),
    });
    sendText(res, 200, 'ok');
  }
}
