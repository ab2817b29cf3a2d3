import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { UpstreamCallError, type UpstreamPool } from '@tollgate/mcp-upstream';
import type { Logger } from 'pino';
import type { GatedCallUseCase } from './approval/gated-call.usecase';
import type { GatewayMetrics } from './gateway.metrics';
import { type GatewayPolicy, verdictFor } from './policy/tool-policy';

export interface GatewayServerDeps {
  readonly pool: UpstreamPool;
  readonly policy: GatewayPolicy;
  readonly gated: GatedCallUseCase | undefined;
  readonly callTimeoutMs: number;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  /** Settles once every upstream has had its first start: a list before that would be empty. */
  readonly started: Promise<void>;
}

/**
 * One JSON Schema validator for every session's Server. Given none, the SDK's Server builds
 * its own Ajv with every format added, and the gateway builds a Server per session: under the
 * X6 fuzz (an initialize in every few requests) that was 18% of the gateway's CPU, and any
 * client could buy it with one junk initialize. The Server uses it only to check an
 * elicitation's answer, which the gateway never asks for.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/**
 * One MCP server per agent session (the SDK binds a Server to one transport). The low-level
 * Server, not McpServer: upstream tools arrive as plain JSON Schema and are passed on as they are.
 */
export function createGatewayServer(deps: GatewayServerDeps, sessionOf: () => string): Server {
  const server = new Server(
    { name: 'tollgate-mcp-gateway', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } }, jsonSchemaValidator: SCHEMA_VALIDATOR },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    await deps.started;
    return {
      tools: deps.pool
        .tools()
        .filter((t) => verdictFor(deps.policy, t.name, t.tool.annotations) !== 'deny')
        .map((t): Tool => ({ ...t.tool, name: t.name })),
    };
  });

  // Registered as the Protocol registers any handler, not through the Server's override for
  // tools/call: the Protocol's registration parses the request against CallToolRequestSchema,
  // and the override parsed it again with the same schema, then parsed the result again
  // although it is the upstream's, already parsed against CallToolResultSchema by the
  // gateway's Client, or one of the gateway's own error results below. The second parses were
  // ~2% of the CPU of an allowed call and could refuse nothing the first ones let through.
  registerOnce(server, async (request, extra): Promise<CallToolResult> => {
    await deps.started;
    const listed = request.params.name;
    const args = request.params.arguments ?? {};
    const known = deps.pool.find(listed);
    const server = deps.pool.serverOf(listed);
    if (known === undefined && server === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${listed}`);
    }
    const verdict = verdictFor(deps.policy, listed, known?.tool.annotations);
    // Made only when something is logged: a child logger per call was a visible share of an
    // allowed call's CPU, and an allowed call that works logs nothing.
    const log = () => deps.logger.child({ session: sessionOf(), tool: listed, verdict });
    if (verdict === 'deny') {
      deps.metrics.calls.inc({ verdict, outcome: 'refused' });
      log().info('call refused by policy');
      return errorResult(`Tool ${listed} is denied by the gateway's policy; it did not run.`);
    }
    if (known === undefined) {
      // The server is configured but has never listed its tools: it is down.
      return upstreamFailure(deps.pool.down()[server ?? ''] ?? 'not started', server ?? listed);
    }
    const token = request.params._meta?.progressToken;
    const forward = async (): Promise<CallToolResult> => {
      try {
        return await deps.pool.call(listed, args, {
          timeoutMs: deps.callTimeoutMs,
          signal: extra.signal,
          // The upstream's own progress is passed on, so a long tool keeps the client waiting.
          onprogress:
            token === undefined
              ? undefined
              : (progress) =>
                  void extra
                    .sendNotification({
                      method: 'notifications/progress',
                      params: { ...progress, progressToken: token },
                    })
                    .catch(() => undefined),
        });
      } catch (error) {
        if (error instanceof UpstreamCallError) {
          log().warn({ failure: error.failure }, error.message);
          return errorResult(error.message);
        }
        throw error;
      }
    };
    if (verdict === 'allow') {
      const result = await forward();
      deps.metrics.calls.inc({ verdict, outcome: result.isError === true ? 'error' : 'ok' });
      return result;
    }
    if (deps.gated === undefined) {
      return errorResult(`Tool ${listed} needs an approval, but no approval API is configured.`);
    }
    deps.metrics.held.inc();
    try {
      const result = await deps.gated.run({
        session: sessionOf(),
        tool: listed,
        arguments: args,
        signal: extra.signal,
        progress:
          token === undefined
            ? undefined
            : (count, message) =>
                extra.sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, progress: count, message },
                }),
        forward,
      });
      deps.metrics.calls.inc({ verdict, outcome: result.isError === true ? 'error' : 'ok' });
      return result;
    } finally {
      deps.metrics.held.dec();
    }
  });

  return server;
}

type ToolCallHandler = (
  request: CallToolRequest,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Promise<CallToolResult>;

/** The Protocol's own registration, with the server as `this`; see where it is called. */
function registerOnce(server: Server, handler: ToolCallHandler): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to the server below
  const register = Protocol.prototype.setRequestHandler;
  register.call(server, CallToolRequestSchema, handler);
}

function upstreamFailure(reason: string, server: string): CallToolResult {
  return errorResult(new UpstreamCallError(server, 'unavailable', reason).message);
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
