import { type Context } from '@opentelemetry/api';
import { inSpan, SpanKind, tracingEnabled } from '@tollgate/telemetry';
import type { ModelClient } from '../model/model-client.port';
import type { SessionDeps } from '../session/domain/session-deps';
import type { Tool } from '../tools/tool';
import type { ToolRegistry } from '../tools/tool-registry';

/**
 * The session's ports with a span around each model call and each tool run. Wrapped only when
 * tracing is on, so a process without an OTLP endpoint calls the ports themselves.
 */
export function tracedSessionDeps(deps: SessionDeps): SessionDeps {
  if (!tracingEnabled()) return deps;
  return { ...deps, model: tracedModel(deps.model), tools: tracedTools(deps.tools) };
}

function tracedModel(model: ModelClient): ModelClient {
  return {
    complete: (request) =>
      inSpan(
        'model.complete',
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'tollgate.model.messages': request.messages.length,
            'tollgate.model.tools': request.tools.length,
          },
        },
        async (span) => {
          const reply = await model.complete(request);
          span?.setAttribute('tollgate.model.tool_calls', reply.toolCalls.length);
          return reply;
        },
      ),
  };
}

function tracedTools(tools: ToolRegistry): ToolRegistry {
  const wrapped = new Map<Tool, Tool>();
  const traced = (tool: Tool): Tool => {
    let one = wrapped.get(tool);
    if (one === undefined) {
      // Delegates everything else to the tool itself (an MCP tool's server, say).
      const run: Tool['run'] = (args, context) =>
        inSpan(`tool ${tool.name}`, { attributes: { 'tollgate.tool.name': tool.name } }, () =>
          tool.run(args, context),
        );
      one = Object.assign(Object.create(tool) as Tool, { run });
      wrapped.set(tool, one);
    }
    return one;
  };
  const isMcpTool = tools.isMcpTool?.bind(tools);
  return {
    ...(isMcpTool === undefined ? {} : { isMcpTool }),
    get: (name) => {
      const tool = tools.get(name);
      return tool === undefined ? undefined : traced(tool);
    },
    list: () => tools.list().map(traced),
  };
}

/**
 * A command's whole decision (its turn, the model and tools included) as one span, under the
 * trace its message came with, even when it waited in the session's mailbox meanwhile.
 */
export function decisionSpan<T>(
  command: { readonly type: string; readonly sessionId: string; readonly id: string },
  parent: Context | undefined,
  decide: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return decide();
  return inSpan(
    `session.decide ${command.type}`,
    {
      ...(parent === undefined ? {} : { parent }),
      attributes: { 'tollgate.session.id': command.sessionId, 'tollgate.command.id': command.id },
    },
    decide,
  );
}
