import { type BaseConfig, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';

const ownShape = {
  DISCORD_BOT_TOKEN: z.string({ error: 'is required' }),
  DISCORD_PUBLIC_KEY: z
    .string({ error: 'is required' })
    .regex(/^[0-9a-fA-F]{64}$/, 'must be the 32-byte Ed25519 public key in hex'),
  DISCORD_APPLICATION_ID: z.string({ error: 'is required' }).regex(/^\d+$/, 'must be a snowflake'),
  DISCORD_API_URL: z
    .url()
    .refine((url) => !url.endsWith('/'), 'must not end with "/"')
    .default('https://discord.com/api'),
  DISCORD_API_TIMEOUT_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(600_000))
    .default(10_000),
};

export type DiscordBindingConfig = BaseConfig & {
  DISCORD_BOT_TOKEN: string;
  DISCORD_PUBLIC_KEY: string;
  DISCORD_APPLICATION_ID: string;
  DISCORD_API_URL: string;
  /** Requested; the adapter caps it by ack_wait and the drain deadline (platformCallTimeoutMs in @tollgate/binding-core). */
  DISCORD_API_TIMEOUT_MS: number;
};

export function loadDiscordBindingConfig(env: NodeJS.ProcessEnv): DiscordBindingConfig {
  return loadConfig('discord-binding', env, ownShape);
}
