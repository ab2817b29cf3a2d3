import type { Conversation, Person, Platform } from '@tollgate/protocol';
import type { DiscordDriver } from '../contract/drivers/discord.driver';
import type { MattermostDriver } from '../contract/drivers/mattermost.driver';
import type { SlackDriver } from '../contract/drivers/slack.driver';
import type { PlatformDriver } from '../contract/platform-driver';

/**
 * The cast of the group-approver journeys, in each platform's id format: Alice asks, Bob and
 * Carol answer; which of them is in the group is up to each test.
 */
export const GROUP_CAST: Record<Platform, { alice: Person; bob: Person; carol: Person }> = {
  slack: {
    alice: { id: 'U_ALICE', displayName: 'Alice' },
    bob: { id: 'U_BOB', displayName: 'Bob' },
    carol: { id: 'U_CAROL', displayName: 'Carol' },
  },
  discord: {
    alice: { id: '412345678901234561', displayName: 'Alice' },
    bob: { id: '412345678901234562', displayName: 'Bob' },
    carol: { id: '412345678901234563', displayName: 'Carol' },
  },
  mattermost: {
    alice: { id: 'U_ALICE', displayName: 'Alice' },
    bob: { id: 'U_BOB', displayName: 'Bob' },
    carol: { id: 'U_CAROL', displayName: 'Carol' },
  },
};

/**
 * Sets the platform's own group as its admin would, on the platform's stand-in: `members` in
 * it and the rest of the cast not — a Slack user group, a Discord role (each cast member's
 * roles), a Mattermost group. On Mattermost, which signs no click, Bob and Carol are also
 * made members of the conversation's channel, since the binding asks whether the clicker is.
 */
export function setPlatformGroup(
  platform: Platform,
  driver: PlatformDriver,
  group: string,
  members: readonly Person[],
  conversation?: Conversation,
): void {
  const ids = members.map((m) => m.id);
  const { alice, bob, carol } = GROUP_CAST[platform];
  if (platform === 'slack') (driver as SlackDriver).fake.setUsergroup(group, ids);
  if (platform === 'discord') {
    const { fake } = driver as DiscordDriver;
    for (const person of [alice, bob, carol]) {
      fake.setGuildMember(person.id, ids.includes(person.id) ? [group] : []);
    }
  }
  if (platform === 'mattermost') {
    const { fake } = driver as MattermostDriver;
    fake.setGroup(group, ids);
    if (conversation) fake.addChannelMembers(conversation.channelId, [bob.id, carol.id]);
    for (const person of [bob, carol]) fake.setUsername(person.id, person.displayName!);
  }
}
