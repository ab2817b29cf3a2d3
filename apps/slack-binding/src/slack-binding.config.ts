import { type BaseConfig, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';

const ownShape = {
  SLACK_BOT_TOKEN: z.string({ error: 'is required' }),
  // Slack's are 32 characters; anything under 12 is a placeholder.
  SLACK_SIGNING_SECRET: z
    .string({ error: 'is required' })
    .min(12, 'must be at least 12 characters'),
  SLACK_API_URL: z.url().default('https://slack.com/api/'),
  SLACK_API_TIMEOUT_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(600_000))
    .default(10_000),
};

export type SlackBindingConfig = BaseConfig & {
  SLACK_BOT_TOKEN: string;
  SLACK_SIGNING_SECRET: string;
  SLACK_API_URL: string;
  /** Requested; the adapter caps it by ack_wait and the drain deadline (platformCallTimeoutMs in @tollgate/binding-core). */
  SLACK_API_TIMEOUT_MS: number;
};

export function loadSlackBindingConfig(env: NodeJS.ProcessEnv): SlackBindingConfig {
  return loadConfig('slack-binding', env, ownShape);
}
