import type { MessageRef } from '@tollgate/binding-core';
import { DiscordAPIError, type REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';

/**
 * Why this file exists: finding a message that may have been posted without an answer (R3)
 * means reading a channel forward from the moment the post was set out on — Discord's ids
 * are times — and keeping only the bot's own messages; how far to read, and when to give up,
 * is this look-back's own policy, apart from making posts.
 */

/** Discord's largest page. */
const FIND_PAGE = 100;
/** Past this many pages even a time window is given up on: the channel is being flooded. */
const MAX_FIND_PAGES = 500;
/** Replicas' clocks and Discord's differ a little: the window opens this much earlier. */
const CLOCK_MARGIN_MS = 5 * 60_000;
/** The first millisecond of 2015, where Discord's snowflakes count from. */
const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/** A message as read back: only what the look-back checks. */
export interface PostedMessage {
  id: string;
  channel_id: string;
  author?: { id?: string };
  components?: Array<{ components?: Array<{ custom_id?: string }> }>;
}

/**
 * The first of the bot's own messages in the channel, posted since `since`, that `matches`.
 * Read forward from a snowflake of that time, page by page, so a busy channel cannot push
 * the post out of reach. A channel Discord no longer knows holds nothing of ours.
 */
export async function findOwnMessage(
  rest: REST,
  applicationId: string,
  channelId: string,
  since: Date,
  matches: (message: PostedMessage) => boolean,
): Promise<MessageRef | undefined> {
  let after = snowflakeAt(since.getTime() - CLOCK_MARGIN_MS);
  for (let page = 0; page < MAX_FIND_PAGES; page += 1) {
    let listed: PostedMessage[];
    try {
      listed = (await rest.get(Routes.channelMessages(channelId), {
        query: new URLSearchParams({ limit: String(FIND_PAGE), after: String(after) }),
      })) as PostedMessage[];
    } catch (error) {
      // A channel Discord no longer knows (10003) holds nothing of ours.
      if (error instanceof DiscordAPIError && error.code === 10003) return undefined;
      throw error;
    }
    // Bot users share their application's id: another app's look-alike is not ours.
    const found = listed.find((m) => m.author?.id === applicationId && matches(m));
    if (found) return { channelId: found.channel_id, messageId: found.id };
    if (listed.length < FIND_PAGE) return undefined;
    // Whichever order a page comes in, the next one starts after its newest message.
    after = listed.reduce((max, m) => (BigInt(m.id) > max ? BigInt(m.id) : max), after);
  }
  return undefined;
}

/** The smallest snowflake of a moment: every message posted after it has a larger id. */
function snowflakeAt(epochMs: number): bigint {
  const since = BigInt(Math.floor(epochMs)) - DISCORD_EPOCH_MS;
  return since > 0n ? since << 22n : 0n;
}
