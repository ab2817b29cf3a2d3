import { BadRequestException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { readInbound } from '@tollgate/binding-core';
import { InboundRefusals } from '@tollgate/service-runtime';
import type { z } from 'zod';
import type { MattermostBindingConfig } from '../mattermost-binding.config';
import { MATTERMOST_CONFIG } from '../mattermost-binding.tokens';
import { type ActionContext, verifyActionContext } from './action-signature';
import { ChannelMembership } from './channel-membership.cache';
import type { MATTERMOST_ENDPOINTS } from './mattermost-endpoints';
import { UserNames } from './user-names.cache';

type CallbackEndpoint = (typeof MATTERMOST_ENDPOINTS)['actions' | 'dialogs'];

/** Who answered, as the server names them: the callback's own `user_name` is unsigned (X13). */
export interface Clicker {
  readonly id: string;
  readonly displayName?: string;
}

/**
 * What every Mattermost callback carrying a button's signed context goes through before it may
 * answer a prompt (docs/protocol.md §5): its shape, then its context's HMAC, then — once the
 * journal's nonce and post are checked by the caller's rules — the answerer's membership of
 * the journaled channel, and their name from the server. Mattermost signs nothing, so a
 * refusal before the context checks out is only counted and logged at debug: whoever holds a
 * captured context can send these as fast as they like.
 */
@Injectable()
export class MattermostCallbackGate {
  constructor(
    @Inject(MATTERMOST_CONFIG) private readonly config: MattermostBindingConfig,
    private readonly refusals: InboundRefusals,
    private readonly membership: ChannelMembership,
    private readonly names: UserNames,
  ) {}

  /** The callback's shape; nothing in it is authenticated yet. Mattermost never retries: 400. */
  read<T>(endpoint: CallbackEndpoint, schema: z.ZodType<T>, raw: unknown): T {
    const read = readInbound(schema, raw);
    if (read.ok) return read.value;
    this.refusals.unauthenticated(endpoint, 'invalid_payload', { detail: read.detail });
    throw new BadRequestException({ reason: 'invalid_payload', detail: read.detail });
  }

  /** The button's context, believed only when its HMAC checks out; otherwise refused. */
  verify(endpoint: CallbackEndpoint, context: unknown): ActionContext {
    const verdict = verifyActionContext(this.config.MATTERMOST_ACTION_SECRET, context);
    if (!verdict.ok) this.refuse(endpoint, verdict.reason);
    return verdict.context;
  }

  /** Counted, logged at debug, 401, nothing published. */
  refuse(endpoint: CallbackEndpoint, reason: string): never {
    this.refusals.unauthenticated(endpoint, reason);
    throw new UnauthorizedException({ reason });
  }

  /** Whether the answerer is in the journaled post's channel (never the request's). */
  isMember(channelId: string, userId: string): Promise<boolean> {
    return this.membership.isMember(channelId, userId);
  }

  async clicker(userId: string): Promise<Clicker> {
    const userName = await this.names.nameOf(userId);
    return { id: userId, ...(userName ? { displayName: userName } : {}) };
  }
}
