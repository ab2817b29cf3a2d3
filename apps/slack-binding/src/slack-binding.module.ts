import { type DynamicModule, Module } from '@nestjs/common';
import { bindingConsumer, streamDefinitions } from '@tollgate/protocol';
import { InfrastructureModule, ServiceRuntimeModule } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { MIGRATIONS } from './migrations';
import type { SlackBindingConfig } from './slack-binding.config';

@Module({})
export class SlackBindingModule {
  static forRoot(config: SlackBindingConfig, logger: Logger): DynamicModule {
    const prefix = config.TOLLGATE_SUBJECT_PREFIX;
    const streams = streamDefinitions(prefix, { outMaxAgeDays: config.TOLLGATE_OUT_MAX_AGE_DAYS });
    return {
      module: SlackBindingModule,
      imports: [
        ServiceRuntimeModule.forRoot(config, logger),
        InfrastructureModule.forRoot({
          provisionPlan: {
            streams: [streams.commands, streams.outputs, streams.deadLetters],
            consumers: [bindingConsumer(prefix, 'slack', config.TOLLGATE_ACK_WAIT_MS)],
          },
          migrations: MIGRATIONS,
        }),
      ],
    };
  }
}
