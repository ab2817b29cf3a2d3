import { TransientFailure } from '@tollgate/messaging';
import type { TextOutput, ToolInteractionRejected } from '@tollgate/protocol';
import type { Logger } from 'pino';
import type {
  DeliveredOutputs,
  DeliveryKind,
  DeliveryLease,
} from '../journal/delivered-outputs.port';
import type { PromptJournal } from '../journal/prompt-journal.port';
import type { MessageRef, PacedCall, PlatformAdapter } from '../platform-adapter.port';
import { decidePrompt } from '../prompt/prompt-lifecycle.decider';
import { deliveryHoldMs } from './delivery-failure.policy';
import { classifyPlatformFailure, effectFailure, type PlatformEffect } from './effect-failure';
import { deliveryCall, type PacedPlatformCall } from './paced-platform-call';

/**
 * The longest a message waits behind another handler's lease before looking again. A live
 * holder normally finishes within one platform call, so waiting out the whole lease (up to
 * 2 × ack_wait) would hold a prompt's next output back for nothing; when the holder did die,
 * the runner's growing delay reaches the end of its lease in a few cheap retries.
 */
export const LEASED_RETRY_MAX_MS = 250;

export interface DeliverOnceDeps {
  readonly deliveries: DeliveredOutputs;
  readonly prompts: PromptJournal;
  readonly adapter: PlatformAdapter;
  readonly replicaId: string;
  readonly leaseMs: number;
  /** How long a post that got no answer keeps its output held (HandleOutputDeps.landingMs). */
  readonly landingMs: number;
  readonly calls: PacedPlatformCall;
}

/** One delivery's platform call, and how to find what an unfinished earlier attempt left. */
interface DeliveryEffect<T> {
  readonly deliver: () => Promise<T>;
  readonly find?: () => Promise<T | undefined>;
}

/** What a delivery did: `undefined` when an earlier one had done it already. */
export type Delivered<T> = { readonly result: T } | undefined;

/**
 * A reply or a notice, delivered once by its output id under a lease (docs/architecture.md
 * §4.1). Paced before it is called (HandleOutput.execute), so a burst into one channel costs
 * the database nothing until each reply's turn comes.
 */
export class DeliverOnce {
  constructor(private readonly deps: DeliverOnceDeps) {}

  async notice(output: ToolInteractionRejected, log: Logger): Promise<Delivered<void>> {
    const { adapter, prompts } = this.deps;
    const state = await prompts.stateOf({ sessionId: output.sessionId, callId: output.callId });
    const decision = decidePrompt(state, output);
    if (decision.kind !== 'notice') {
      throw new Error(`a Rejected decided ${decision.kind}, not a notice`);
    }
    return this.deliverOnce(output, 'notice', log, {
      deliver: async () => {
        await adapter.sendNotice(output.conversation, decision.to, decision.text, decision.near);
      },
    });
  }

  /**
   * The post carries the output id so that a retry after an attempt that never finished (a
   * crash, or a timeout after the platform accepted the post) finds it instead of repeating
   * the reply.
   */
  text(output: TextOutput, log: Logger): Promise<Delivered<MessageRef>> {
    const { adapter } = this.deps;
    const find = adapter.findPostedText?.bind(adapter);
    return this.deliverOnce(output, 'text', log, {
      deliver: () =>
        adapter.postText(output.conversation, output.text, output.role, output.id, output.mention),
      ...(find === undefined ? {} : { find: () => find(output.conversation, output.id) }),
    });
  }

  /**
   * A crash or a timeout between the platform call and the journal write leaves the output
   * undelivered, so it is delivered again: `find` (a text post, by its output id) first looks
   * for what the earlier attempt may have left on the platform and adopts it; a private
   * notice, which no platform lets a bot read back, may be shown twice.
   */
  private async deliverOnce<T extends MessageRef | void>(
    output: TextOutput | ToolInteractionRejected,
    kind: DeliveryKind,
    log: Logger,
    effect: DeliveryEffect<T>,
  ): Promise<Delivered<T>> {
    const { deliveries, replicaId, leaseMs } = this.deps;
    const claim = await deliveries.claim({ outputId: output.id, kind, owner: replicaId, leaseMs });
    switch (claim.kind) {
      case 'delivered':
        log.debug({ kind }, 'output already delivered');
        return undefined;
      case 'leased':
        throw new TransientFailure('output_leased', {
          retryAfterMs: Math.min(claim.retryAfterMs, LEASED_RETRY_MAX_MS),
        });
      case 'claimed':
        break;
    }
    if (claim.retry) log.info({ kind }, 'delivering again after an attempt that did not finish');
    const find = claim.retry ? effect.find : undefined;
    const found =
      find && (await this.underDeliveryLease(claim.lease, log, 'find_posted_text', find));
    if (found !== undefined) {
      log.info({ kind }, 'the earlier attempt reached the platform; adopted');
    }
    const paced = deliveryCall(output);
    const result =
      found ??
      (await this.underDeliveryLease(claim.lease, log, paced.effect, effect.deliver, {
        paced,
        findable: effect.find !== undefined,
      }));
    if (await deliveries.complete(claim.lease, result ?? undefined)) {
      log.info({ kind }, 'output delivered');
    } else {
      log.warn({ kind }, 'delivery lease lost during the effect; its new holder finishes');
    }
    return { result };
  }

  /**
   * One platform call under a delivery lease: a failure ends the lease (or, for a post that
   * may still land, holds it until it could have: deliveryHoldMs) and says how to retry.
   */
  private async underDeliveryLease<R>(
    lease: DeliveryLease,
    log: Logger,
    effect: PlatformEffect,
    call: () => Promise<R>,
    post?: { readonly paced: PacedCall; readonly findable: boolean },
  ): Promise<R> {
    try {
      return await call();
    } catch (error) {
      const { adapter, deliveries, landingMs, calls } = this.deps;
      const failure = classifyPlatformFailure(adapter, error);
      const holdMs = deliveryHoldMs(effect, failure, {
        landingMs,
        findable: post?.findable ?? false,
      });
      // A release that fails only makes the retry wait for the lease to run out.
      await deliveries.release(lease, holdMs).catch((failed: unknown) => {
        log.warn({ err: failed }, 'could not release the delivery lease; it will run out');
      });
      const failed = effectFailure(adapter, effect, error);
      const thrown = post === undefined ? failed : calls.rateLimited(post.paced, failed);
      if (holdMs > 0) {
        // The retry looks for this post once it could have landed, and adopts it if it did.
        log.info(
          { holdMs, reason: failure.reason },
          'a post got no answer; held until it could have landed',
        );
        throw new TransientFailure(thrown.message, { retryAfterMs: holdMs, cause: error });
      }
      throw thrown;
    }
  }
}
