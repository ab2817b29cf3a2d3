import { type DynamicModule, Module } from '@nestjs/common';
import type { UpstreamPool } from '@tollgate/mcp-upstream';
import { sessionServiceConsumer, streamDefinitions } from '@tollgate/protocol';
import {
  DatabaseClient,
  InfrastructureModule,
  MetricsService,
  ServiceRuntimeModule,
} from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { Gauge } from 'prom-client';
import { ToolGrantsRepository } from '@tollgate/session-read-model';
import { MIGRATIONS } from './migrations';
import { MODEL_CLIENT, type ModelClient } from './model/model-client.port';
import { OpenAiChatClient } from './model/openai-chat.client';
import { ProviderLimitedModelClient } from './model/provider-limited.model-client';
import { ScriptedModelClient } from './model/scripted-model.client';
import { CommandsController } from './commands/commands.controller';
import { LeaderGate } from './leadership/leader-gate';
import { SessionRuntime } from './session-runtime.service';
import type { SessionServiceConfig } from './session-service.config';
import { TOOL_GRANTS, type ToolGrants } from './session/domain/tool-grants.port';
import type { ToolPolicy } from './tools/tool-policy';
import { withMcpTools } from './tools/mcp-tool.registry';
import type { McpServersStartConfig } from './tools/mcp-servers.loader';
import { MCP_POOL, McpUpstreams } from './tools/mcp-upstreams.service';
import { builtInTools, TOOL_POLICY, TOOL_REGISTRY } from './tools/tool-registry';

/** The validated environment plus the policy file it names (loaded once, at start). */
export type SessionServiceStartConfig = SessionServiceConfig & {
  readonly toolPolicy: ToolPolicy;
} & Partial<McpServersStartConfig>;

@Module({})
export class SessionServiceModule {
  static forRoot(config: SessionServiceStartConfig, logger: Logger): DynamicModule {
    const prefix = config.TOLLGATE_SUBJECT_PREFIX;
    const streams = streamDefinitions(prefix, {
      outMaxAgeDays: config.TOLLGATE_OUT_MAX_AGE_DAYS,
      maxBytes: config.TOLLGATE_STREAM_MAX_BYTES,
    });
    return {
      module: SessionServiceModule,
      imports: [
        ServiceRuntimeModule.forRoot(config, logger),
        InfrastructureModule.forRoot({
          provisionPlan: {
            streams: [streams.commands, streams.outputs, streams.deadLetters, streams.decisions],
            consumers: [sessionServiceConsumer(prefix, config.TOLLGATE_ACK_WAIT_MS)],
          },
          migrations: MIGRATIONS,
        }),
      ],
      controllers: [CommandsController],
      providers: [
        {
          provide: MODEL_CLIENT,
          useFactory: (metrics: MetricsService) => limitedModelClientFor(config, metrics),
          inject: [MetricsService],
        },
        {
          provide: MCP_POOL,
          useFactory: () => mcpPoolFor(config, logger),
        },
        McpUpstreams,
        {
          provide: TOOL_REGISTRY,
          useFactory: (pool: UpstreamPool | undefined) =>
            withMcpTools(builtInTools(), pool?.serverNames() ?? [], pool),
          inject: [MCP_POOL],
        },
        { provide: TOOL_POLICY, useValue: config.toolPolicy },
        {
          provide: TOOL_GRANTS,
          useFactory: (database: DatabaseClient): ToolGrants =>
            new ToolGrantsRepository(() => database.whenReady()),
          inject: [DatabaseClient],
        },
        LeaderGate,
        SessionRuntime,
      ],
    };
  }
}

/**
 * The pool of the configured MCP servers, or undefined without any: the library loads the MCP
 * SDK, zod schemas and ajv (~0.1 s of CPU), which a start without MCP servers must not pay.
 */
async function mcpPoolFor(
  config: SessionServiceStartConfig,
  logger: Logger,
): Promise<UpstreamPool | undefined> {
  const servers = config.mcpServers?.servers;
  if (servers === undefined || servers.size === 0) return undefined;
  const { UpstreamPool } = await import('@tollgate/mcp-upstream');
  return new UpstreamPool(servers, { logger, clientName: 'tollgate-session-service' });
}

function limitedModelClientFor(config: SessionServiceConfig, metrics: MetricsService): ModelClient {
  const calls = new Gauge({
    name: 'tollgate_model_calls_in_flight',
    help: 'Calls to the model provider under way',
    registers: [metrics.registry],
  });
  return new ProviderLimitedModelClient(modelClientFor(config), {
    maxConcurrency: config.MODEL_MAX_CONCURRENCY,
    retryBaseMs: config.MODEL_RETRY_BASE_MS,
    retryMaxMs: config.MODEL_RETRY_MAX_MS,
    giveUpMs: config.MODEL_GIVE_UP_MS,
    onInFlight: (n) => calls.set(n),
  });
}

function modelClientFor(config: SessionServiceConfig): ModelClient {
  switch (config.MODEL_PROVIDER) {
    case 'scripted':
      return new ScriptedModelClient();
    case 'openai': {
      const { OPENAI_BASE_URL: baseUrl, MODEL: model, OPENAI_API_KEY: apiKey } = config;
      // loadSessionServiceConfig already refused a start without them.
      if (!baseUrl || !model) {
        throw new Error('MODEL_PROVIDER=openai needs OPENAI_BASE_URL and MODEL');
      }
      return new OpenAiChatClient({
        baseUrl,
        model,
        maxSockets: config.MODEL_MAX_CONCURRENCY,
        ...(apiKey ? { apiKey } : {}),
      });
    }
  }
}
