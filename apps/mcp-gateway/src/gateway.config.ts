import {
  expandEnv,
  parseServersBlock,
  parseYamlKeepingReferences,
  type UpstreamSpec,
} from '@tollgate/mcp-upstream';
import { ConfigError } from '@tollgate/service-runtime';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { type GatewayPolicy, VERDICTS } from './policy/tool-policy';

const verdict = z.enum(VERDICTS);

const fileSchema = z.strictObject({
  approvalApi: z
    .strictObject({
      url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
      key: z.string().min(1, 'is required'),
    })
    .optional(),
  agentName: z.string().min(1).max(64).default('mcp-gateway'),
  holdSeconds: z.number().int().min(1).max(3_600).default(50),
  // While held, a progress notification this often (when the client gave a progress token):
  // clients that reset their timeout on progress then wait the whole hold.
  progressSeconds: z.number().int().min(1).max(60).default(10),
  // An upstream call that takes longer is answered with an error naming the server.
  callTimeoutSeconds: z.number().int().min(1).max(3_600).default(50),
  // How often each upstream is pinged; one that does not answer is restarted.
  pingSeconds: z.number().min(0.1).max(3_600).default(10),
  servers: z.unknown(),
  policy: z
    .strictObject({
      default: verdict.default('ask'),
      readOnly: verdict.optional(),
      tools: z.record(z.string(), verdict).default({}),
    })
    .default({ default: 'ask', tools: {} }),
});

function wholeNumber(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

const envSchema = z.object({
  PORT: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(0).max(65_535))
    .default(3005),
  // Loopback by default; any other address needs TOLLGATE_MCP_GATEWAY_TOKEN.
  HOST: z.string().min(1).default('127.0.0.1'),
  // Agents send `Authorization: Bearer <it>` on /mcp; unset, /mcp is open (loopback only).
  TOLLGATE_MCP_GATEWAY_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  // A session with no exchange open for this long is closed (its agent resumes it on demand).
  TOLLGATE_MCP_SESSION_IDLE_SECONDS: wholeNumber(1, 7 * 24 * 3_600).default(1_800),
  // Live MCP sessions at most: past it the oldest idle one gives way, or a new one is refused.
  TOLLGATE_MCP_MAX_SESSIONS: wholeNumber(1, 1_000_000).default(1_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // As every service: /metrics needs `Authorization: Bearer <it>`; unset, only from this host.
  TOLLGATE_METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
});

export interface GatewayConfig {
  readonly PORT: number;
  readonly HOST: string;
  readonly LOG_LEVEL: string;
  readonly TOLLGATE_METRICS_TOKEN?: string | undefined;
  readonly TOLLGATE_MCP_GATEWAY_TOKEN?: string | undefined;
  readonly TOLLGATE_MCP_SESSION_IDLE_SECONDS: number;
  readonly TOLLGATE_MCP_MAX_SESSIONS: number;
  readonly approvalApi: { readonly url: string; readonly key: string } | undefined;
  readonly agentName: string;
  readonly holdSeconds: number;
  readonly progressSeconds: number;
  readonly callTimeoutSeconds: number;
  readonly pingSeconds: number;
  readonly servers: ReadonlyMap<string, UpstreamSpec>;
  readonly policy: GatewayPolicy;
  /** Everything `${VAR}` expanded; censored in every log line. */
  readonly secrets: readonly string[];
}

/**
 * Reads `--config <file>` and the environment; every problem is named, no value echoed. `serving`
 * is how agents reach it: over HTTP a non-loopback HOST needs TOLLGATE_MCP_GATEWAY_TOKEN.
 */
export function loadGatewayConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
  serving: 'http' | 'stdio' = 'http',
): GatewayConfig {
  let raw: unknown;
  try {
    raw = parseYamlKeepingReferences(readFileSync(file, 'utf8'), parse);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'unreadable';
    throw new ConfigError([{ variable: '--config', problem: `cannot read ${file}: ${reason}` }]);
  }
  const present = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const envResult = envSchema.safeParse(present);
  const { servers: rawServers, ...rest } = (raw ?? {}) as Record<string, unknown>;
  const expanded = expandEnv(rest, env);
  const fileResult = fileSchema.safeParse({ ...expanded.value, servers: rawServers });
  const problems = [
    ...expanded.missing.map((name) => ({
      variable: `\${${name}}`,
      problem: 'is not set in the environment',
    })),
    ...(envResult.success
      ? []
      : envResult.error.issues.map((i) => ({ variable: i.path.join('.'), problem: i.message }))),
    ...(fileResult.success
      ? []
      : fileResult.error.issues.map((i) => ({
          variable: i.path.join('.') || '(config)',
          problem: i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message,
        }))),
  ];
  if (
    serving === 'http' &&
    envResult.success &&
    envResult.data.TOLLGATE_MCP_GATEWAY_TOKEN === undefined &&
    !isLoopbackHost(envResult.data.HOST)
  ) {
    problems.push({
      variable: 'TOLLGATE_MCP_GATEWAY_TOKEN',
      problem: `is required when HOST (${envResult.data.HOST}) is not a loopback address: /mcp would run tools for anyone who can reach it`,
    });
  }
  let servers;
  try {
    servers = parseServersBlock(rawServers, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length > 0 || !envResult.success || !fileResult.success || servers === undefined) {
    throw new ConfigError(problems);
  }
  const config = fileResult.data;
  if (config.approvalApi === undefined && mayAsk(config.policy)) {
    throw new ConfigError([
      { variable: 'approvalApi', problem: 'is required while any tool may be "ask" (policy)' },
    ]);
  }
  return {
    ...envResult.data,
    approvalApi: config.approvalApi,
    agentName: config.agentName,
    holdSeconds: config.holdSeconds,
    progressSeconds: config.progressSeconds,
    callTimeoutSeconds: config.callTimeoutSeconds,
    pingSeconds: config.pingSeconds,
    servers: servers.servers,
    policy: config.policy,
    secrets: [
      ...expanded.secrets,
      ...servers.secrets,
      ...(envResult.data.TOLLGATE_METRICS_TOKEN === undefined
        ? []
        : [envResult.data.TOLLGATE_METRICS_TOKEN]),
      ...(envResult.data.TOLLGATE_MCP_GATEWAY_TOKEN === undefined
        ? []
        : [envResult.data.TOLLGATE_MCP_GATEWAY_TOKEN]),
    ],
  };
}

function mayAsk(policy: GatewayPolicy): boolean {
  return (
    policy.default === 'ask' ||
    policy.readOnly === 'ask' ||
    Object.values(policy.tools).includes('ask')
  );
}

/** Hosts only this machine can reach: `localhost`, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
