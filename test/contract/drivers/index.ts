import type { Platform } from '@tollgate/protocol';
import type { PlatformDriver } from '../platform-driver';
import { DiscordDriver } from './discord.driver';
import { MattermostDriver } from './mattermost.driver';
import { SlackDriver } from './slack.driver';

/** The platforms whose binding the contract suite runs against; each adds its driver here. */
export const CONTRACT_DRIVERS: Partial<Record<Platform, () => PlatformDriver>> = {
  slack: () => new SlackDriver(),
  mattermost: () => new MattermostDriver(),
  discord: () => new DiscordDriver(),
};
