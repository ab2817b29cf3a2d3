import { type DynamicModule, Module } from '@nestjs/common';
import {
  BindingCoreModule,
  bindingProvisionPlan,
  PLATFORM_ADAPTER,
  platformCallTimeoutMs,
} from '@tollgate/binding-core';
import { InfrastructureModule, ServiceRuntimeModule } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { SlackEventsController } from './inbound/slack-events.controller';
import { SlackInteractionsController } from './inbound/slack-interactions.controller';
import { SlackResponseUrl } from './inbound/slack-response-url';
import { SlackSignatureGuard } from './inbound/slack-signature.guard';
import { MIGRATIONS } from './migrations';
import { SlackPlatformAdapter } from './platform/slack-platform.adapter';
import { SlackEditFormOpener } from './platform/slack-edit-form.opener';
import type { SlackBindingConfig } from './slack-binding.config';
import { SLACK_CONFIG } from './slack-binding.tokens';

@Module({})
export class SlackBindingModule {
  static forRoot(config: SlackBindingConfig, logger: Logger): DynamicModule {
    return {
      module: SlackBindingModule,
      imports: [
        ServiceRuntimeModule.forRoot(config, logger),
        InfrastructureModule.forRoot({
          provisionPlan: bindingProvisionPlan(config, 'slack'),
          migrations: MIGRATIONS,
        }),
        BindingCoreModule.forRoot({
          platform: 'slack',
          adapter: {
            provide: PLATFORM_ADAPTER,
            useValue: new SlackPlatformAdapter({
              token: config.SLACK_BOT_TOKEN,
              apiUrl: config.SLACK_API_URL,
              timeoutMs: platformCallTimeoutMs({
                requestedMs: config.SLACK_API_TIMEOUT_MS,
                ackWaitMs: config.TOLLGATE_ACK_WAIT_MS,
                drainMs: config.TOLLGATE_DRAIN_MS,
              }),
            }),
          },
        }),
      ],
      controllers: [SlackEventsController, SlackInteractionsController],
      providers: [
        { provide: SLACK_CONFIG, useValue: config },
        SlackSignatureGuard,
        SlackResponseUrl,
        {
          provide: SlackEditFormOpener,
          useValue: new SlackEditFormOpener({
            token: config.SLACK_BOT_TOKEN,
            apiUrl: config.SLACK_API_URL,
          }),
        },
      ],
    };
  }
}
