import { type DynamicModule, Module } from '@nestjs/common';
import { sessionServiceConsumer, streamDefinitions } from '@tollgate/protocol';
import { InfrastructureModule, ServiceRuntimeModule } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { MIGRATIONS } from './migrations';
import { MODEL_CLIENT } from './model/model-client.port';
import { ScriptedModelClient } from './model/scripted-model.client';
import { SessionRuntime } from './session-runtime.service';
import type { SessionServiceConfig } from './session-service.config';
import { defaultToolPolicy } from './tools/tool-policy';
import { noToolGrants, TOOL_GRANTS } from './session/domain/tool-grants.port';
import { builtInTools, TOOL_POLICY, TOOL_REGISTRY } from './tools/tool-registry';

@Module({})
export class SessionServiceModule {
  static forRoot(config: SessionServiceConfig, logger: Logger): DynamicModule {
    const prefix = config.TOLLGATE_SUBJECT_PREFIX;
    const streams = streamDefinitions(prefix, { outMaxAgeDays: config.TOLLGATE_OUT_MAX_AGE_DAYS });
    return {
      module: SessionServiceModule,
      imports: [
        ServiceRuntimeModule.forRoot(config, logger),
        InfrastructureModule.forRoot({
          provisionPlan: {
            streams: [streams.commands, streams.outputs, streams.deadLetters],
            consumers: [sessionServiceConsumer(prefix, config.TOLLGATE_ACK_WAIT_MS)],
          },
          migrations: MIGRATIONS,
        }),
      ],
      providers: [
        { provide: MODEL_CLIENT, useValue: new ScriptedModelClient() },
        { provide: TOOL_REGISTRY, useValue: builtInTools() },
        { provide: TOOL_POLICY, useValue: defaultToolPolicy() },
        { provide: TOOL_GRANTS, useValue: noToolGrants },
        SessionRuntime,
      ],
    };
  }
}
