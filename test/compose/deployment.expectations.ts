// What docs/protocol.md §5 (wire contract v1) says each service is started with. Kept here
// rather than parsed from the design notes, so a drift in either shows up as a failure.

export const APP_SERVICES = {
  'session-service': {
    port: 3000,
    inbound: false,
    own: ['MODEL_PROVIDER', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'MODEL', 'TOOL_POLICY_FILE'],
  },
  'slack-binding': {
    port: 3001,
    inbound: true,
    own: [
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SLACK_API_URL',
      'SLACK_ALLOWED_TEAM_IDS',
      'SLACK_ALLOWED_APP_IDS',
    ],
  },
  'discord-binding': {
    port: 3002,
    inbound: true,
    own: ['DISCORD_BOT_TOKEN', 'DISCORD_PUBLIC_KEY', 'DISCORD_APPLICATION_ID', 'DISCORD_API_URL'],
  },
  'mattermost-binding': {
    port: 3003,
    inbound: true,
    own: [
      'MATTERMOST_URL',
      'MATTERMOST_TOKEN',
      'MATTERMOST_ACTION_SECRET',
      'MATTERMOST_COMMAND_TOKEN',
      'MATTERMOST_PUBLIC_URL',
    ],
  },
  'approval-api': {
    port: 3004,
    // Agents call it, not a chat platform: this host (or a proxy that authenticates) only.
    inbound: false,
    own: ['TOLLGATE_HOOK_HOLD_S'],
  },
} as const;

export type AppService = keyof typeof APP_SERVICES;

export const COMMON_VARIABLES = [
  'PORT',
  'NATS_URL',
  'NATS_USER',
  'NATS_PASSWORD',
  'DATABASE_URL',
  'DATABASE_SCHEMA',
  'TOLLGATE_SUBJECT_PREFIX',
  'LOG_LEVEL',
  'TOLLGATE_ACK_WAIT_MS',
  'TOLLGATE_DRAIN_MS',
  'TOLLGATE_METRICS_TOKEN',
  'TOLLGATE_RETRY_BASE_MS',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
] as const;

/** Where NATS reads its authorization: the file `npm run nats:config` writes, mounted. */
export const NATS_CONFIG_FILE = 'nats/nats-server.conf';

/** The cluster profile's: the same users plus an authenticated `cluster` block. */
export const NATS_CLUSTER_CONFIG_FILE = 'nats/nats-cluster.conf';

/** What nats-server is started through: it refuses an unset, empty or weak password. */
export const NATS_START_SCRIPT = 'nats/start-nats.sh';

/** The internal network the cluster nodes' routes listen on, and nothing else joins. */
export const ROUTE_NETWORK = 'nats-routes';

/** Every password the NATS configuration references: the services' and the operator's. */
export const NATS_PASSWORD_VARIABLES = [
  'NATS_PASSWORD_SESSION_SERVICE',
  'NATS_PASSWORD_SLACK_BINDING',
  'NATS_PASSWORD_DISCORD_BINDING',
  'NATS_PASSWORD_MATTERMOST_BINDING',
  'NATS_PASSWORD_APPROVAL_API',
  'NATS_PASSWORD_OPERATOR',
] as const;

/** The variable nats-server and one service share that service's NATS password from. */
export function natsPasswordVariable(service: AppService): string {
  return `NATS_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;
}

export const INFRA_SERVICES = ['nats', 'postgres'] as const;

/** The `cluster` profile's JetStream nodes (R7); the services list all three in NATS_URL. */
export const CLUSTER_NODES = ['nats-1', 'nats-2', 'nats-3'] as const;

/** D7: the `jaeger` profile's trace collector and UI, off by default. */
export const TRACING_SERVICES = ['jaeger'] as const;

/** TOLLGATE_DRAIN_MS's default; Docker must wait longer than this before SIGKILL. */
export const DEFAULT_DRAIN_MS = 10_000;

/** Variables whose values are credentials and must only ever come from interpolation. */
export const SECRET_NAME = /_(TOKEN|SECRET|KEY|PASSWORD)$/;

/** `DATABASE_SCHEMA` default: the service name with `_` for `-`. */
export function defaultSchema(service: AppService): string {
  return service.replace(/-/g, '_');
}
