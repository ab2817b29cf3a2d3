import { type DynamicModule, Module } from '@nestjs/common';
import {
  BindingCoreModule,
  bindingProvisionPlan,
  PLATFORM_ADAPTER,
  platformCallTimeoutMs,
} from '@tollgate/binding-core';
import { InfrastructureModule, ServiceRuntimeModule } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { ChannelMembership } from './inbound/channel-membership.cache';
import { MattermostActionsController } from './inbound/mattermost-actions.controller';
import { MattermostCallbackGate } from './inbound/mattermost-callback.gate';
import { MattermostDialogsController } from './inbound/mattermost-dialogs.controller';
import { MattermostDialogs } from './platform/mattermost-dialogs';
import { MattermostCommandsController } from './inbound/mattermost-commands.controller';
import { UserNames } from './inbound/user-names.cache';
import { VerifyTypedAnswer } from './inbound/verify-typed-answer.usecase';
import { MIGRATIONS } from './migrations';
import type { MattermostBindingConfig } from './mattermost-binding.config';
import { MATTERMOST_CONFIG } from './mattermost-binding.tokens';
import { MattermostPlatformAdapter } from './platform/mattermost-platform.adapter';

/**
 * How long a membership answer is believed, and how many are kept: long enough that a burst
 * of clicks costs one lookup, short enough that someone removed from a channel stops
 * answering its prompts within seconds (docs/protocol.md §5: "cached briefly", X13: 5 s).
 */
export const MEMBERSHIP_TTL_MS = 5_000;
const MEMBERSHIP_MAX_ENTRIES = 10_000;
/** Names authorize nothing: remembered longer, so answers cost no lookup each. */
const USER_NAME_TTL_MS = 5 * 60_000;

@Module({})
export class MattermostBindingModule {
  static forRoot(config: MattermostBindingConfig, logger: Logger): DynamicModule {
    const adapter = new MattermostPlatformAdapter({
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
    });
    const membership = new ChannelMembership(
      (channelId, userId) => adapter.isChannelMember(channelId, userId),
      { ttlMs: MEMBERSHIP_TTL_MS, maxEntries: MEMBERSHIP_MAX_ENTRIES },
    );
    const names = new UserNames((userId) => adapter.userName(userId), {
      ttlMs: USER_NAME_TTL_MS,
      maxEntries: MEMBERSHIP_MAX_ENTRIES,
    });
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
          adapter: { provide: PLATFORM_ADAPTER, useValue: adapter },
        }),
      ],
      controllers: [
        MattermostActionsController,
        MattermostCommandsController,
        MattermostDialogsController,
      ],
      providers: [
        { provide: MATTERMOST_CONFIG, useValue: config },
        {
          provide: MattermostDialogs,
          useValue: new MattermostDialogs(
            { url: config.MATTERMOST_URL, token: config.MATTERMOST_TOKEN },
            `${config.MATTERMOST_PUBLIC_URL.replace(/\/+$/, '')}/mattermost/dialogs`,
          ),
        },
        { provide: ChannelMembership, useValue: membership },
        { provide: UserNames, useValue: names },
        MattermostCallbackGate,
        {
          provide: VerifyTypedAnswer,
          useValue: new VerifyTypedAnswer({
            readPost: (postId) => adapter.readPost(postId),
            isMember: (channelId, userId) => membership.isMember(channelId, userId),
            nameOf: (userId) => names.nameOf(userId),
          }),
        },
      ],
    };
  }
}
