import { type BaseConfig, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';

const ownShape = {
  DISCORD_BOT_TOKEN: z.string({ error: 'is required' }),
  DISCORD_PUBLIC_KEY: z
    .string({ error: 'is required' })
    .regex(/^[0-9a-fA-F]{64}$/, 'must be the 32-byte Ed25519 public key in hex'),
  DISCORD_APPLICATION_ID: z.string({ error: 'is required' }).regex(/^\d+$/, 'must be a snowflake'),
  DISCORD_API_URL: z.url().default('https://discord.com/api'),
};

export type DiscordBindingConfig = BaseConfig & {
  DISCORD_BOT_TOKEN: string;
  DISCORD_PUBLIC_KEY: string;
  DISCORD_APPLICATION_ID: string;
  DISCORD_API_URL: string;
};

export function loadDiscordBindingConfig(env: NodeJS.ProcessEnv): DiscordBindingConfig {
  return loadConfig('discord-binding', env, ownShape);
}
