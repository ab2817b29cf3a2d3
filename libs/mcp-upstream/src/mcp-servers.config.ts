import { ConfigError } from '@tollgate/service-runtime';
import { z } from 'zod';
import { expandEnv } from './env-expansion';
import { SERVER_NAME } from './tool-names';

const stringMap = z.record(z.string(), z.string());

const stdioServer = z.strictObject({
  command: z.string().min(1, 'is required'),
  args: z.array(z.string()).default([]),
  env: stringMap.default({}),
  cwd: z.string().min(1).optional(),
});

const httpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  headers: stringMap.default({}),
});

export type StdioServerSpec = z.output<typeof stdioServer> & { readonly kind: 'stdio' };
export type HttpServerSpec = z.output<typeof httpServer> & { readonly kind: 'http' };
export type UpstreamSpec = StdioServerSpec | HttpServerSpec;

export interface ServersConfig {
  readonly servers: ReadonlyMap<string, UpstreamSpec>;
  /** Every value `${VAR}` brought in, to be censored in logs. */
  readonly secrets: readonly string[];
}

/**
 * Reads a `servers:` block (shared by the gateway's config and TOLLGATE_MCP_SERVERS_FILE).
 * Problems name the server and field, never a value: headers carry tokens.
 */
export function parseServersBlock(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  where = 'servers',
): ServersConfig {
  if (raw === undefined || raw === null) return { servers: new Map(), secrets: [] };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError([{ variable: where, problem: 'must be a map of server name to server' }]);
  }
  const problems: { variable: string; problem: string }[] = [];
  const servers = new Map<string, UpstreamSpec>();
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const at = `${where}.${name}`;
    if (!SERVER_NAME.test(name)) {
      problems.push({
        variable: at,
        problem: 'a server name is 1–64 letters, digits, "-" or "_", without "__"',
      });
      continue;
    }
    const expanded = expandEnv(value, env);
    for (const variable of expanded.missing) {
      problems.push({
        variable: `${at} \${${variable}}`,
        problem: 'is not set in the environment',
      });
    }
    expanded.secrets.forEach((s) => secrets.add(s));
    const isHttp =
      typeof expanded.value === 'object' && expanded.value !== null && 'url' in expanded.value;
    const parsed = (isHttp ? httpServer : stdioServer).safeParse(expanded.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push({
          variable: [at, ...issue.path.map(String)].join('.'),
          problem:
            issue.code === 'invalid_type' && issue.input === undefined
              ? 'is required'
              : issue.message,
        });
      }
      continue;
    }
    servers.set(
      name,
      isHttp
        ? { kind: 'http', ...(parsed.data as z.output<typeof httpServer>) }
        : { kind: 'stdio', ...(parsed.data as z.output<typeof stdioServer>) },
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { servers, secrets: [...secrets] };
}
