import { type BaseConfig, ConfigError, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';
import type { CheckpointName } from './session/domain/session-recorder';

const ownShape = {
  MODEL_PROVIDER: z.enum(['scripted', 'openai']).default('scripted'),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  MODEL: z.string().optional(),
  TOOL_POLICY_FILE: z.string().optional(),
  /** Test-only: kill the process right after this checkpoint commits (crash scenarios). */
  TOLLGATE_FAILPOINT: z.enum(['approval-resolved', 'tool-starting']).optional(),
};

export type SessionServiceConfig = BaseConfig & {
  MODEL_PROVIDER: 'scripted' | 'openai';
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  MODEL?: string;
  TOOL_POLICY_FILE?: string;
  TOLLGATE_FAILPOINT?: CheckpointName;
};

export function loadSessionServiceConfig(env: NodeJS.ProcessEnv): SessionServiceConfig {
  const config = loadConfig('session-service', env, ownShape);
  if (config.MODEL_PROVIDER === 'openai') {
    const missing = (['OPENAI_BASE_URL', 'MODEL'] as const).filter((name) => !config[name]);
    if (missing.length > 0) {
      throw new ConfigError(
        missing.map((variable) => ({
          variable,
          problem: 'is required when MODEL_PROVIDER=openai',
        })),
      );
    }
  }
  return config;
}
