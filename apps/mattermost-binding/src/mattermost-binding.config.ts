import { type BaseConfig, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';

const ownShape = {
  MATTERMOST_URL: z.url({ error: 'must be the Mattermost server URL' }),
  MATTERMOST_TOKEN: z.string({ error: 'is required' }),
  MATTERMOST_ACTION_SECRET: z
    .string({ error: 'is required' })
    .min(16, 'must be at least 16 characters'),
  // Mattermost's are 26 characters; anything under 12 is a placeholder.
  MATTERMOST_COMMAND_TOKEN: z
    .string({ error: 'is required' })
    .min(12, 'must be at least 12 characters'),
  MATTERMOST_PUBLIC_URL: z.url({ error: 'must be the URL where Mattermost reaches this binding' }),
  MATTERMOST_API_TIMEOUT_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(600_000))
    .default(10_000),
};

export type MattermostBindingConfig = BaseConfig & {
  MATTERMOST_URL: string;
  MATTERMOST_TOKEN: string;
  MATTERMOST_ACTION_SECRET: string;
  MATTERMOST_COMMAND_TOKEN: string;
  MATTERMOST_PUBLIC_URL: string;
  /** Requested; the adapter caps it by ack_wait and the drain deadline (platformCallTimeoutMs in @tollgate/binding-core). */
  MATTERMOST_API_TIMEOUT_MS: number;
};

export function loadMattermostBindingConfig(env: NodeJS.ProcessEnv): MattermostBindingConfig {
  return loadConfig('mattermost-binding', env, ownShape);
}
