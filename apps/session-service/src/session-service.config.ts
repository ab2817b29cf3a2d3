import { auditRetentionDays } from '@tollgate/audit';
import { type BaseConfig, ConfigError, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';
import { DEFAULT_HISTORY_TURNS } from './session/domain/provider-history';
import type { CheckpointName } from './session/domain/session-recorder';

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const ownShape = {
  MODEL_PROVIDER: z.enum(['scripted', 'openai']).default('scripted'),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  MODEL: z.string().optional(),
  TOOL_POLICY_FILE: z.string().optional(),
  /** A YAML file whose `servers:` block names MCP servers; their tools join the registry. */
  TOLLGATE_MCP_SERVERS_FILE: z.string().optional(),
  /** Turns in flight at once (each may wait seconds on the model or a tool). */
  TOLLGATE_MAX_TURNS: integer(1, 1_000_000).default(1_000),
  /** Calls to the model provider at once; the provider's own 429s limit further. */
  MODEL_MAX_CONCURRENCY: integer(1, 100_000).default(256),
  /** First delay before asking an unavailable provider again; doubles per attempt. */
  MODEL_RETRY_BASE_MS: integer(1, 600_000).default(500),
  MODEL_RETRY_MAX_MS: integer(1, 3_600_000).default(30_000),
  /** A turn whose model stays unavailable this long fails with a notice. */
  MODEL_GIVE_UP_MS: integer(0, 86_400_000).default(300_000),
  /** How many latest turns of its conversation a model call is shown, each whole. */
  MODEL_HISTORY_TURNS: integer(1, 1_000_000).default(DEFAULT_HISTORY_TURNS),
  /** Test-only: kill the process right after this checkpoint commits (crash scenarios). */
  TOLLGATE_FAILPOINT: z.enum(['approval-resolved', 'tool-starting', 'model-calling']).optional(),
  /** S22: how often due reminders and deadlines are looked for. */
  TOLLGATE_TIMER_POLL_MS: integer(100, 3_600_000).default(5_000),
  /** G4: how often the leader links newly committed audit entries into their day's chain. */
  TOLLGATE_AUDIT_SEAL_MS: integer(50, 60_000).default(1_000),
  /**
   * Test-only: runs the service's clock this far ahead (journal times, due timers), so a
   * process-level test reaches a deadline without waiting for it.
   */
  TOLLGATE_TEST_CLOCK_OFFSET_MS: integer(0, 100_000_000_000).optional(),
  /** X14: how long an "Allow in this chat" lasts: `24h`, `90m`, `30s`, `500ms`, `7d`. */
  TOLLGATE_SESSION_GRANT_TTL: z
    .string()
    .regex(/^\d{1,9}(ms|s|m|h|d)$/, 'must be a duration such as 24h, 90m or 30s')
    .transform(durationMs)
    .pipe(
      z
        .number()
        .int()
        .min(1_000, 'must be at least 1s')
        .max(365 * 86_400_000),
    )
    .default(24 * 3_600_000),
  /** G4: the leader prunes whole audit days older than this (same rule as `audit prune`). */
  TOLLGATE_AUDIT_RETENTION_DAYS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return auditRetentionDays(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
};

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function durationMs(text: string): number {
  const [, amount, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(text) ?? [];
  return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
}

export type SessionServiceConfig = BaseConfig & {
  MODEL_PROVIDER: 'scripted' | 'openai';
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  MODEL?: string;
  TOOL_POLICY_FILE?: string;
  TOLLGATE_MCP_SERVERS_FILE?: string;
  TOLLGATE_MAX_TURNS: number;
  MODEL_MAX_CONCURRENCY: number;
  MODEL_RETRY_BASE_MS: number;
  MODEL_RETRY_MAX_MS: number;
  MODEL_GIVE_UP_MS: number;
  MODEL_HISTORY_TURNS: number;
  TOLLGATE_FAILPOINT?: CheckpointName;
  TOLLGATE_TIMER_POLL_MS: number;
  TOLLGATE_AUDIT_SEAL_MS: number;
  TOLLGATE_TEST_CLOCK_OFFSET_MS?: number;
  TOLLGATE_SESSION_GRANT_TTL: number;
  TOLLGATE_AUDIT_RETENTION_DAYS: number;
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
