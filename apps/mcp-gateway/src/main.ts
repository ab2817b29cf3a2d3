import 'reflect-metadata';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { UpstreamPool } from '@tollgate/mcp-upstream';
import {
  ConfigError,
  createLogger,
  MetricsAccess,
  MetricsService,
  ReadinessService,
} from '@tollgate/service-runtime';
import pino from 'pino';
import { ApprovalApiClient } from './approval/approval-api.client';
import { GatedCallUseCase } from './approval/gated-call.usecase';
import { type GatewayConfig, loadGatewayConfig } from './gateway.config';
import { GatewayMetrics } from './gateway.metrics';
import { createGatewayServer } from './gateway-server.factory';
import { createHttpServer } from './transport/http.server';
import { McpAccess } from './transport/mcp-access';
import { McpSessions } from './transport/mcp-sessions';
import { routeRequestsDirectly } from './transport/request-dispatch';

const USAGE = 'usage: mcp-gateway --config <file> [--stdio]';
/** Stdio agents have no MCP session id; the gateway's calls over stdio share this one. */
const STDIO_SESSION = 'stdio';

function parseArgs(argv: readonly string[]): { config: string; stdio: boolean } {
  let config: string | undefined;
  let stdio = false;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--config') config = argv[++i];
    else if (argv[i] === '--stdio') stdio = true;
    else fail(`unknown argument ${argv[i]}; ${USAGE}`);
  }
  if (config === undefined) fail(USAGE);
  return { config, stdio };
}

function fail(message: string): never {
  process.stderr.write(`mcp-gateway: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let config: GatewayConfig;
  try {
    config = loadGatewayConfig(args.config, process.env, args.stdio ? 'stdio' : 'http');
  } catch (error) {
    fail(error instanceof ConfigError ? error.message : String(error));
  }
  // Over stdio, stdout is the MCP channel: logs go to stderr.
  const logger = createLogger('mcp-gateway', config.LOG_LEVEL, {
    secrets: [
      ...config.secrets,
      ...(config.approvalApi ? [config.approvalApi.key] : []),
      ...(config.TOLLGATE_METRICS_TOKEN === undefined ? [] : [config.TOLLGATE_METRICS_TOKEN]),
      ...(config.TOLLGATE_MCP_GATEWAY_TOKEN === undefined
        ? []
        : [config.TOLLGATE_MCP_GATEWAY_TOKEN]),
    ],
    destination: args.stdio ? pino.destination(2) : undefined,
  });
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception');
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled promise rejection');
    process.exit(1);
  });

  const pool = new UpstreamPool(config.servers, {
    logger,
    pingIntervalMs: config.pingSeconds * 1000,
    pingTimeoutMs: Math.min(5_000, config.pingSeconds * 1000),
    clientName: 'tollgate-mcp-gateway',
  });
  const readiness = new ReadinessService();
  const metrics = new MetricsService();
  for (const name of pool.serverNames()) {
    readiness.register({
      name: `upstream:${name}`,
      check: () => pool.states()[name]?.status === 'up',
    });
  }
  readiness.describe('upstreams', () => pool.states());
  const started = pool.start();
  const gatewayMetrics = new GatewayMetrics(metrics, pool);
  const deps = {
    pool,
    policy: config.policy,
    gated:
      config.approvalApi === undefined
        ? undefined
        : new GatedCallUseCase(
            new ApprovalApiClient(config.approvalApi.url, config.approvalApi.key),
            {
              agentName: config.agentName,
              holdSeconds: config.holdSeconds,
              progressEverySeconds: config.progressSeconds,
            },
          ),
    callTimeoutMs: config.callTimeoutSeconds * 1000,
    metrics: gatewayMetrics,
    logger,
    started,
  };

  const closers: (() => Promise<unknown>)[] = [];
  if (args.stdio) {
    const server = createGatewayServer(deps, () => STDIO_SESSION);
    pool.onToolsChanged(() => void server.sendToolListChanged().catch(() => undefined));
    const transport = new StdioServerTransport();
    transport.onclose = () => stop('stdin closed');
    await server.connect(transport);
    // The SDK's stdio transport validates each line against JSONRPCMessageSchema, as ours does.
    routeRequestsDirectly(server, transport);
    closers.push(() => server.close());
    logger.info({ servers: pool.serverNames() }, 'serving MCP over stdio');
  } else {
    const sessions = new McpSessions(
      (sessionOf) => createGatewayServer(deps, sessionOf),
      {
        idleMs: config.TOLLGATE_MCP_SESSION_IDLE_SECONDS * 1000,
        max: config.TOLLGATE_MCP_MAX_SESSIONS,
      },
      {
        closed: (why) => gatewayMetrics.sessionsClosed.inc({ why }),
        refused: (reason) => gatewayMetrics.refusals.inc({ reason }),
      },
    );
    gatewayMetrics.countSessions(() => sessions.counts());
    pool.onToolsChanged(() => {
      for (const server of sessions.servers())
        void server.sendToolListChanged().catch(() => undefined);
    });
    const http = createHttpServer(
      sessions,
      readiness,
      metrics,
      logger,
      new MetricsAccess(config.TOLLGATE_METRICS_TOKEN),
      new McpAccess(config.TOLLGATE_MCP_GATEWAY_TOKEN),
      (reason) => gatewayMetrics.refusals.inc({ reason }),
    );
    await new Promise<void>((resolve) => http.listen(config.PORT, config.HOST, resolve));
    const address = http.address();
    logger.info(
      {
        port: typeof address === 'object' && address ? address.port : config.PORT,
        host: config.HOST,
        servers: pool.serverNames(),
        mcpToken: config.TOLLGATE_MCP_GATEWAY_TOKEN === undefined ? 'none (loopback)' : 'required',
      },
      'listening',
    );
    closers.push(async () => {
      await sessions.closeAll();
      // Open SSE streams would hold close() until the forced exit.
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
  }

  let stopping = false;
  function stop(reason: string): void {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    const forced = setTimeout(() => process.exit(1), 10_000);
    forced.unref();
    // Held calls are simply dropped: their approvals stay in the approval API for the next call.
    Promise.all([...closers.map((close) => close()), pool.stop()]).then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  }
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

void main();
