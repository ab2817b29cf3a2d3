import { MetricsAccess, MetricsService, ReadinessService } from '@tollgate/service-runtime';
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { Logger } from 'pino';
import type { McpAccess, McpAccessRefusal } from './mcp-access';
import type { McpSessions } from './mcp-sessions';
import { endJson, writeRefusal } from './http-answers';

/** The approval API's limit: an MCP message bigger than any approval it could ask for is refused. */
const BODY_LIMIT = 4 * 1024 * 1024;

const UNAUTHORIZED: Record<McpAccessRefusal, string> = {
  mcp_token_required:
    'This gateway requires Authorization: Bearer <token> (its TOLLGATE_MCP_GATEWAY_TOKEN) on /mcp',
  bad_mcp_token: "The bearer token is not this gateway's TOLLGATE_MCP_GATEWAY_TOKEN",
};

/** `/mcp` for agents, and the health and metrics endpoints every Tollgate service serves. */
export function createHttpServer(
  sessions: McpSessions,
  readiness: ReadinessService,
  metrics: MetricsService,
  logger: Logger,
  metricsAccess: MetricsAccess = new MetricsAccess(undefined),
  mcpAccess?: McpAccess,
  onRefused: (reason: McpAccessRefusal) => void = () => undefined,
): HttpServer {
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health/live') return json(res, 200, { status: 'live' });
    if (req.method === 'GET' && path === '/health/ready') {
      const report = await readiness.report();
      return json(res, report.ready ? 200 : 503, {
        status: report.ready ? 'ready' : 'not_ready',
        checks: report.checks,
        ...report.details,
      });
    }
    if (req.method === 'GET' && path === '/metrics') {
      const refusal = metricsAccess.refusal(req.socket.remoteAddress, req.headers);
      if (refusal !== undefined) {
        return json(res, refusal === 'bad_metrics_token' ? 403 : 401, { error: refusal });
      }
      const body = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(body);
      return;
    }
    if (path !== '/mcp') return json(res, 404, { error: 'not_found', message: 'no such endpoint' });
    const refusal = mcpAccess?.refusal(req.headers);
    if (refusal !== undefined) {
      onRefused(refusal);
      // Before the body is read: a caller without the token costs no more than its headers.
      res.setHeader('www-authenticate', 'Bearer realm="tollgate-mcp-gateway"');
      return rpcError(res, 401, -32000, UNAUTHORIZED[refusal], { reason: refusal });
    }
    let parsed: unknown;
    if (req.method === 'POST') {
      const body = await readBody(req, BODY_LIMIT);
      if (body === undefined) {
        res.setHeader('connection', 'close');
        return rpcError(res, 413, -32600, 'request body too large');
      }
      try {
        parsed = JSON.parse(body);
      } catch {
        return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
    }
    await sessions.handle(req, res, parsed);
  };
  return createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      logger.error({ err: error, path: req.url }, 'request failed');
      if (!res.headersSent) json(res, 500, { error: 'internal', message: 'the gateway failed' });
      else res.end();
    });
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  endJson(res, status, JSON.stringify(body));
}

function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): void {
  writeRefusal(res, { status, code, message, data });
}

/**
 * Reads a request body up to `limit` bytes; undefined when it is larger (the rest is then
 * drained unbuffered). Listeners, not an async iterator: the
 * iterator's stream plumbing per request was a visible share of an allowed call's CPU.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Keep the socket: destroying it here would hang up on the agent before its 413. The
      // rest of the body is read and dropped (nothing buffered), and the answer closes the
      // connection.
      stop();
      chunks.length = 0;
      req.resume();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // Closed before its end: the agent went away mid-body.
    const onClose = () => onError(new Error('the request closed before its body was read'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}
