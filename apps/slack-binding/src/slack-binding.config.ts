import { type BaseConfig, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';

const ownShape = {
  SLACK_BOT_TOKEN: z.string({ error: 'is required' }),
  SLACK_SIGNING_SECRET: z.string({ error: 'is required' }),
  SLACK_API_URL: z.url().default('https://slack.com/api/'),
};

export type SlackBindingConfig = BaseConfig & {
  SLACK_BOT_TOKEN: string;
  SLACK_SIGNING_SECRET: string;
  SLACK_API_URL: string;
};

export function loadSlackBindingConfig(env: NodeJS.ProcessEnv): SlackBindingConfig {
  return loadConfig('slack-binding', env, ownShape);
}
