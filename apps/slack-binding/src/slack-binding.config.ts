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
  // Comma-separated; unset or empty allows any workspace / app that signs with the secret.
  SLACK_ALLOWED_TEAM_IDS: idList('a comma-separated list of Slack team ids (T…)'),
  SLACK_ALLOWED_APP_IDS: idList('a comma-separated list of Slack app ids (A…)'),
};

function idList(what: string) {
  return z
    .string()
    .transform((raw) =>
      raw
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    )
    .pipe(z.array(z.string().regex(/^[A-Z0-9]{2,64}$/, `must be ${what}`)))
    .default([]);
}

export type SlackBindingConfig = BaseConfig & {
  SLACK_BOT_TOKEN: string;
  SLACK_SIGNING_SECRET: string;
  SLACK_API_URL: string;
  /** Requested; the adapter caps it by ack_wait and the drain deadline (platformCallTimeoutMs in @tollgate/binding-core). */
  SLACK_API_TIMEOUT_MS: number;
  /** Empty: any. Otherwise a signed request naming another workspace or app is refused. */
  SLACK_ALLOWED_TEAM_IDS: string[];
  SLACK_ALLOWED_APP_IDS: string[];
};

export function loadSlackBindingConfig(env: NodeJS.ProcessEnv): SlackBindingConfig {
  return loadConfig('slack-binding', env, ownShape);
}
