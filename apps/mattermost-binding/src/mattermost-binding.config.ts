import { type BaseConfig, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';

const ownShape = {
  MATTERMOST_URL: z.url({ error: 'must be the Mattermost server URL' }),
  MATTERMOST_TOKEN: z.string({ error: 'is required' }),
  MATTERMOST_ACTION_SECRET: z
    .string({ error: 'is required' })
    .min(16, 'must be at least 16 characters'),
  MATTERMOST_COMMAND_TOKEN: z.string({ error: 'is required' }),
  MATTERMOST_PUBLIC_URL: z.url({ error: 'must be the URL where Mattermost reaches this binding' }),
};

export type MattermostBindingConfig = BaseConfig & {
  MATTERMOST_URL: string;
  MATTERMOST_TOKEN: string;
  MATTERMOST_ACTION_SECRET: string;
  MATTERMOST_COMMAND_TOKEN: string;
  MATTERMOST_PUBLIC_URL: string;
};

export function loadMattermostBindingConfig(env: NodeJS.ProcessEnv): MattermostBindingConfig {
  return loadConfig('mattermost-binding', env, ownShape);
}
