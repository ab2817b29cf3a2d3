import { type DynamicModule, Module } from '@nestjs/common';
import {
  BindingCoreModule,
  bindingProvisionPlan,
  PLATFORM_ADAPTER,
  platformCallTimeoutMs,
} from '@tollgate/binding-core';
import { InfrastructureModule, ServiceRuntimeModule } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { MattermostActionsController } from './inbound/mattermost-actions.controller';
import { MattermostCommandsController } from './inbound/mattermost-commands.controller';
import { MIGRATIONS } from './migrations';
import type { MattermostBindingConfig } from './mattermost-binding.config';
import { MATTERMOST_CONFIG } from './mattermost-binding.tokens';
import { MattermostPlatformAdapter } from './platform/mattermost-platform.adapter';

@Module({})
export class MattermostBindingModule {
  static forRoot(config: MattermostBindingConfig, logger: Logger): DynamicModule {
    return {
      module: MattermostBindingModule,
      imports: [
        ServiceRuntimeModule.forRoot(config, logger),
        InfrastructureModule.forRoot({
          provisionPlan: bindingProvisionPlan(config, 'mattermost'),
          migrations: MIGRATIONS,
        }),
        BindingCoreModule.forRoot({
          platform: 'mattermost',
          adapter: {
            provide: PLATFORM_ADAPTER,
            useValue: new MattermostPlatformAdapter({
              url: config.MATTERMOST_URL,
              token: config.MATTERMOST_TOKEN,
              render: {
                actionUrl: `${config.MATTERMOST_PUBLIC_URL.replace(/\/+$/, '')}/mattermost/actions`,
                actionSecret: config.MATTERMOST_ACTION_SECRET,
              },
              timeoutMs: platformCallTimeoutMs({
                requestedMs: config.MATTERMOST_API_TIMEOUT_MS,
                ackWaitMs: config.TOLLGATE_ACK_WAIT_MS,
                drainMs: config.TOLLGATE_DRAIN_MS,
              }),
            }),
          },
        }),
      ],
      controllers: [MattermostActionsController, MattermostCommandsController],
      providers: [{ provide: MATTERMOST_CONFIG, useValue: config }],
    };
  }
}
