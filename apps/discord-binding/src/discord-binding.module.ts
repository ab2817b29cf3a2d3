import { type DynamicModule, Module } from '@nestjs/common';
import {
  BindingCoreModule,
  bindingProvisionPlan,
  PLATFORM_ADAPTER,
  platformCallTimeoutMs,
} from '@tollgate/binding-core';
import {
  DatabaseClient,
  InfrastructureModule,
  ServiceRuntimeModule,
} from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { DiscordInteractionsController } from './inbound/discord-interactions.controller';
import { DiscordSignatureGuard } from './inbound/discord-signature.guard';
import { MIGRATIONS } from './migrations';
import { DiscordPlatformAdapter } from './platform/discord-platform.adapter';
import { InteractionTokenHousekeeper } from './platform/interaction-token.housekeeper';
import { InteractionTokenRepository } from './platform/interaction-token.repository';
import { InteractionTokenSealer } from './platform/interaction-token.sealer';
import type { DiscordBindingConfig } from './discord-binding.config';
import { DISCORD_CONFIG } from './discord-binding.tokens';

@Module({})
export class DiscordBindingModule {
  static forRoot(config: DiscordBindingConfig, logger: Logger): DynamicModule {
    return {
      module: DiscordBindingModule,
      imports: [
        ServiceRuntimeModule.forRoot(config, logger),
        InfrastructureModule.forRoot({
          provisionPlan: bindingProvisionPlan(config, 'discord'),
          migrations: MIGRATIONS,
        }),
        BindingCoreModule.forRoot({
          platform: 'discord',
          adapter: {
            provide: PLATFORM_ADAPTER,
            useFactory: (database: DatabaseClient) =>
              new DiscordPlatformAdapter({
                token: config.DISCORD_BOT_TOKEN,
                apiUrl: config.DISCORD_API_URL,
                applicationId: config.DISCORD_APPLICATION_ID,
                // Discord's 50 a second, on the same clock the core's pacer keeps.
                globalRequestsPerSecond: 50 * config.TOLLGATE_RATE_WINDOW_DIVISOR,
                timeoutMs: platformCallTimeoutMs({
                  requestedMs: config.DISCORD_API_TIMEOUT_MS,
                  ackWaitMs: config.TOLLGATE_ACK_WAIT_MS,
                  drainMs: config.TOLLGATE_DRAIN_MS,
                }),
                tokens: new InteractionTokenRepository(
                  () => database.whenReady(),
                  new InteractionTokenSealer(config.DISCORD_BOT_TOKEN),
                ),
              }),
            inject: [DatabaseClient],
          },
        }),
      ],
      controllers: [DiscordInteractionsController],
      providers: [
        { provide: DISCORD_CONFIG, useValue: config },
        DiscordSignatureGuard,
        InteractionTokenHousekeeper,
      ],
    };
  }
}
