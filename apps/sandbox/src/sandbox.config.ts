import { join } from 'node:path';
import type { Platform } from '@tollgate/protocol';
import { StartupFailure } from './infrastructure/startup-failure';

/** The variables that make a binding talk to its real platform instead of the stand-in. */
export const REAL_PLATFORM_SECRETS: Readonly<Record<Platform, readonly string[]>> = {
  slack: ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET'],
  discord: ['DISCORD_BOT_TOKEN', 'DISCORD_PUBLIC_KEY', 'DISCORD_APPLICATION_ID'],
  mattermost: [
    'MATTERMOST_URL',
    'MATTERMOST_TOKEN',
    'MATTERMOST_ACTION_SECRET',
    'MATTERMOST_COMMAND_TOKEN',
    'MATTERMOST_PUBLIC_URL',
  ],
};
/** Optional variables of a real platform, passed on with its secrets. */
const REAL_PLATFORM_EXTRAS: Readonly<Record<Platform, readonly string[]>> = {
  slack: ['SLACK_API_URL', 'SLACK_API_TIMEOUT_MS'],
  discord: ['DISCORD_API_URL', 'DISCORD_API_TIMEOUT_MS'],
  mattermost: ['MATTERMOST_API_TIMEOUT_MS'],
};
/** Tuning every service reads, passed on as given. */
const PASSED_TO_EVERY_SERVICE = [
  'LOG_LEVEL',
  'TOLLGATE_ACK_WAIT_MS',
  'TOLLGATE_DRAIN_MS',
  'TOLLGATE_RETRY_BASE_MS',
  'TOLLGATE_OUT_MAX_AGE_DAYS',
  'TOLLGATE_STALL_AFTER_MS',
];
const PASSED_TO_SESSION_SERVICE = [
  'MODEL_PROVIDER',
  'OPENAI_BASE_URL',
  'OPENAI_API_KEY',
  'MODEL',
  'TOOL_POLICY_FILE',
  'TOLLGATE_MCP_SERVERS_FILE',
];
const DEFAULT_PAGE_PORT = 4800;
/** Real platforms call the binding at a URL set up once in their app settings: fixed ports. */
export const REAL_BINDING_PORTS: Readonly<Record<Platform, number>> = {
  slack: 3001,
  discord: 3002,
  mattermost: 3003,
};

export interface SandboxConfig {
  readonly root: string;
  readonly dataDir: string;
  /** Where the sandbox's filesystem MCP server may read and write. */
  readonly workspaceDir: string;
  readonly pagePort: number;
  readonly prefix: string;
  readonly drainMs: number;
  readonly databaseUrl: string | undefined;
  readonly natsUrl: string | undefined;
  /** The real platform variables of each binding whose secrets are all set. */
  readonly realPlatforms: Partial<Record<Platform, Record<string, string>>>;
  /** Passed to every service. */
  readonly serviceEnv: Record<string, string>;
  readonly sessionServiceEnv: Record<string, string>;
}

/** `npm start` needs no variable; each one it reads changes one thing (README "npm start"). */
export function loadSandboxConfig(env: NodeJS.ProcessEnv, root: string): SandboxConfig {
  const prefix = env.TOLLGATE_SUBJECT_PREFIX ?? 'sandbox';
  if (!/^[a-z][a-z0-9_]{0,39}$/.test(prefix)) {
    throw new StartupFailure(
      `TOLLGATE_SUBJECT_PREFIX=${prefix}: use lowercase letters, digits and _ (it names the schemas too)`,
    );
  }
  const pagePort = Number(env.SANDBOX_PORT ?? DEFAULT_PAGE_PORT);
  if (!Number.isInteger(pagePort) || pagePort < 0 || pagePort > 65535) {
    throw new StartupFailure(`SANDBOX_PORT=${env.SANDBOX_PORT}: not a port number`);
  }
  const drainMs = Number(env.TOLLGATE_DRAIN_MS ?? 10_000);
  if (!Number.isInteger(drainMs) || drainMs < 0) {
    throw new StartupFailure(`TOLLGATE_DRAIN_MS=${env.TOLLGATE_DRAIN_MS}: not a number of ms`);
  }
  const realPlatforms: Partial<Record<Platform, Record<string, string>>> = {};
  for (const platform of Object.keys(REAL_PLATFORM_SECRETS) as Platform[]) {
    if (REAL_PLATFORM_SECRETS[platform].every((name) => env[name])) {
      realPlatforms[platform] = pick(env, [
        ...REAL_PLATFORM_SECRETS[platform],
        ...REAL_PLATFORM_EXTRAS[platform],
      ]);
    }
  }
  const sessionServiceEnv = pick(env, PASSED_TO_SESSION_SERVICE);
  if (sessionServiceEnv.OPENAI_BASE_URL && !sessionServiceEnv.MODEL_PROVIDER) {
    sessionServiceEnv.MODEL_PROVIDER = 'openai';
  }
  const dataDir = env.TOLLGATE_DATA_DIR ?? join(root, '.tollgate');
  return {
    root,
    dataDir,
    workspaceDir: join(dataDir, 'workspace'),
    pagePort,
    prefix,
    drainMs,
    databaseUrl: env.DATABASE_URL || undefined,
    natsUrl: env.NATS_URL || undefined,
    realPlatforms,
    serviceEnv: { PATH: env.PATH ?? '/usr/bin:/bin', ...pick(env, PASSED_TO_EVERY_SERVICE) },
    sessionServiceEnv,
  };
}

function pick(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value) picked[name] = value;
  }
  return picked;
}
