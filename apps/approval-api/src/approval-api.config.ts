import { type BaseConfig, loadConfig } from '@tollgate/service-runtime';
import { z } from 'zod';

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const ownShape = {
  // Below Claude Code's 600 s default hook timeout, so the hook answers before it gives up.
  TOLLGATE_HOOK_HOLD_S: integer(1, 3_600).default(540),
  // The first webhook retry's delay; each next one doubles, up to an hour, for 24 hours.
  TOLLGATE_WEBHOOK_RETRY_BASE_MS: integer(10, 3_600_000).default(5_000),
  TOLLGATE_WEBHOOK_HORIZON_S: integer(1, 7 * 86_400).default(86_400),
  TOLLGATE_WEBHOOK_TIMEOUT_MS: integer(100, 120_000).default(10_000),
};

export type ApprovalApiConfig = BaseConfig & {
  TOLLGATE_HOOK_HOLD_S: number;
  TOLLGATE_WEBHOOK_RETRY_BASE_MS: number;
  TOLLGATE_WEBHOOK_HORIZON_S: number;
  TOLLGATE_WEBHOOK_TIMEOUT_MS: number;
};

export function loadApprovalApiConfig(env: NodeJS.ProcessEnv): ApprovalApiConfig {
  return loadConfig('approval-api', env, ownShape);
}
