import type { NatsCredentials } from '@tollgate/messaging';
import { DEFAULT_STREAM_MAX_BYTES } from '@tollgate/protocol';
import { z } from 'zod';
import { ConfigError } from './config-error';
import { readNatsCredentials } from './nats-credentials.config';

/** The services; each one's defaults (port, schema) derive from its name. */
export const SERVICE_NAMES = [
  'session-service',
  'slack-binding',
  'discord-binding',
  'mattermost-binding',
  'approval-api',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const DEFAULT_PORTS: Record<ServiceName, number> = {
  'session-service': 3000,
  'slack-binding': 3001,
  'discord-binding': 3002,
  'mattermost-binding': 3003,
  'approval-api': 3004,
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** Below this a database password is a placeholder or a default, never a generated one. */
export const MIN_DATABASE_PASSWORD_LENGTH = 16;

const databaseUrl = z
  .string({ error: 'is required' })
  .min(1, 'is required')
  .refine((raw) => {
    try {
      const url = new URL(raw);
      return (
        (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== ''
      );
    } catch {
      return false;
    }
  }, 'must be a postgres:// or postgresql:// URL with a host')
  .refine((raw) => {
    // A password, when the URL carries one, of the documented minimum; none (trust, a
    // socket, a .pgpass) is the database's own business.
    try {
      const password = decodeURIComponent(new URL(raw).password);
      return password === '' || password.length >= MIN_DATABASE_PASSWORD_LENGTH;
    } catch {
      return true;
    }
  }, `must carry a password of at least ${MIN_DATABASE_PASSWORD_LENGTH} characters, or none`);

const natsUrl = z
  .string()
  .refine(
    (raw) => raw.split(',').every((part) => /^(nats|tls|ws|wss):\/\/[^\s/]+/.test(part.trim())),
    'must be one or more nats:// URLs separated by commas',
  );

function baseShape(service: ServiceName) {
  return {
    PORT: integer(0, 65535).default(DEFAULT_PORTS[service]),
    // The address to listen on; unset, every interface (a container's port must be reachable).
    // `npm start` sets 127.0.0.1.
    HOST: z.string().min(1).optional(),
    NATS_URL: natsUrl.default('nats://127.0.0.1:4222'),
    // Checked together, by readNatsCredentials; each alone is just a string here.
    NATS_USER: z.string().optional(),
    NATS_PASSWORD: z.string().optional(),
    NATS_CREDS: z.string().optional(),
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
      .default(service.replace(/-/g, '_')),
    TOLLGATE_SUBJECT_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be one token matching ^[a-z][a-z0-9_-]{0,31}$')
      .default('tollgate'),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    TOLLGATE_ACK_WAIT_MS: integer(1_000, 3_600_000).default(30_000),
    TOLLGATE_DRAIN_MS: integer(0, 600_000).default(10_000),
    TOLLGATE_RETRY_BASE_MS: integer(1, 3_600_000).default(1_000),
    // A consumer with messages waiting and nothing settled for this long is not ready.
    TOLLGATE_STALL_AFTER_MS: integer(1_000, 86_400_000).default(120_000),
    TOLLGATE_OUT_MAX_AGE_DAYS: integer(1, 3650).default(14),
    // Each stream's size limit; the operator provisions with the same value (`npm run provision`).
    TOLLGATE_STREAM_MAX_BYTES: integer(1_048_576, Number.MAX_SAFE_INTEGER).default(
      DEFAULT_STREAM_MAX_BYTES,
    ),
    // A handler still running after this long is abandoned and its message retried.
    TOLLGATE_HANDLER_TIMEOUT_MS: integer(100, 86_400_000).default(300_000),
    // Set on every pooled PostgreSQL session (see DEFAULT_SESSION_TIMEOUTS in persistence).
    DATABASE_STATEMENT_TIMEOUT_MS: integer(1, 3_600_000).default(30_000),
    DATABASE_LOCK_TIMEOUT_MS: integer(1, 3_600_000).default(10_000),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: integer(1, 3_600_000).default(60_000),
    // The most pooled PostgreSQL connections the service opens; unset, its own default
    // (DEFAULT_POOL_SIZES in database.client.ts).
    DATABASE_POOL_SIZE: integer(2, 1_000).optional(),
    // Set: /metrics only with `Authorization: Bearer <it>`; unset: only from this host.
    TOLLGATE_METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
    // Divides every chat platform rate-limit window a binding paces by: 1 in production;
    // tests and benches run the platforms' limits faster with a larger one.
    TOLLGATE_RATE_WINDOW_DIVISOR: integer(1, 1_000_000).default(1),
  };
}

type BaseShape = ReturnType<typeof baseShape>;
export type BaseConfig = z.output<z.ZodObject<BaseShape>> & {
  service: ServiceName;
  /** From NATS_USER + NATS_PASSWORD or NATS_CREDS; absent means an anonymous connection. */
  natsCredentials?: NatsCredentials | undefined;
};

/**
 * Validates the environment once, at start, into a typed object. Empty strings count as
 * unset, so `FOO=` in a compose file falls back to the default instead of failing oddly.
 * Every problem is reported together, each naming its variable; values are never echoed,
 * since some of them are secrets.
 */
export function loadConfig<S extends z.ZodRawShape>(
  service: ServiceName,
  env: NodeJS.ProcessEnv,
  ownShape: S,
): BaseConfig & z.output<z.ZodObject<S>> {
  const schema = z.object({ ...baseShape(service), ...ownShape });
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = schema.safeParse(present);
  const nats = readNatsCredentials(present);
  const problems = [
    ...(result.success
      ? []
      : result.error.issues.map((issue) => ({
          variable: issue.path.map(String).join('.') || '(environment)',
          problem:
            issue.code === 'invalid_type' && issue.input === undefined
              ? 'is required'
              : issue.message,
        }))),
    ...(nats.ok ? [] : nats.problems),
  ];
  if (!result.success || !nats.ok) throw new ConfigError(problems);
  return {
    ...(result.data as BaseConfig & z.output<z.ZodObject<S>>),
    service,
    natsCredentials: nats.credentials,
  };
}
