import {
  InvalidPayload,
  PermanentFailure,
  TransientFailure,
  type TriageVerdict,
} from '@tollgate/messaging';
import {
  LIMITS,
  parseOutputForSubject,
  PROTOCOL_VERSION,
  undeliverableCommandId,
  type Output,
  type Subjects,
  type TextOutput,
  type ToolInteractionRejected,
  type ToolInteractionUpdate,
} from '@tollgate/protocol';
import type { Logger } from 'pino';
import type {
  DeliveredOutputs,
  DeliveryKind,
  DeliveryLease,
} from '../journal/delivered-outputs.port';
import type { CommandPublisher } from '../inbound/command-publisher.port';
import type { KnownSessions } from '../journal/known-sessions.port';
import type { OwedRefreshes } from '../journal/owed-refreshes.port';
import type { PromptClaim, PromptJournal, PromptLease } from '../journal/prompt-journal.port';
import { priorityOf } from '../pacing/output-priority';
import type { CallPriority, RateLimitPacer } from '../pacing/rate-limit-pacer';
import type {
  FoundPrompt,
  MessageRef,
  PacedCall,
  PlatformAdapter,
  PlatformFailure,
  PromptViewKind,
} from '../platform-adapter.port';
import { newPostNonce } from '../prompt/post-nonce';
import type { PromptDropReason } from '../prompt/prompt-decision';
import type { PromptEvent } from '../prompt/prompt-event';
import {
  decidePrompt,
  effectEvents,
  trackedEvent,
  type OrderedCallOutput,
} from '../prompt/prompt-lifecycle.decider';
import { classifyPlatformFailure, effectFailure, type PlatformEffect } from './effect-failure';
import { SessionSequencer } from './session-sequencer';

export interface HandleOutputDeps {
  readonly subjects: Subjects;
  readonly prompts: PromptJournal;
  readonly deliveries: DeliveredOutputs;
  readonly sessions: KnownSessions;
  readonly adapter: PlatformAdapter;
  /** Names this replica on every lease it takes. */
  readonly replicaId: string;
  /** How long a claim may hold a prompt before another handler may assume it died. */
  readonly leaseMs: number;
  /**
   * How long after an unfinished post was set out on it may wait for the platform to say
   * whether it landed. Past it, a look that keeps failing settles the post as never made
   * (R3): a prompt is never blocked for good by a post nobody can find. It must outlast the
   * lease, or a replica taking over at the lease's end could not retry a single failed look.
   */
  readonly reconcileForMs: number;
  /**
   * How long a post whose call ended without an answer (a timeout, a dropped connection) keeps
   * its prompt held. The platform may still make it: looking for it, and posting afresh when
   * it is not there, before it could have landed would leave two live prompts, one with
   * buttons nobody tracks. None: released at once, like any failure.
   */
  readonly landingMs?: number;
  /** Where `ToolInteractionUndeliverable` goes (R2). */
  readonly commands: CommandPublisher;
  readonly now: () => Date;
  readonly logger: Logger;
  /** Paces platform calls by the adapter's rate-limit buckets; none: calls are not paced. */
  readonly pacer?: RateLimitPacer;
  /** Where refreshes the platform has no room for wait; none: every refresh is handled. */
  readonly owedRefreshes?: OwedRefreshes;
}

/**
 * Sets a wait aside without a consumer slot (DeliveredMessage.park): a message waiting on its
 * rate-limit bucket or on its session's earlier output holds nothing other work could use.
 */
export type Park = <T>(waiting: Promise<T>) => Promise<T>;

const inPlace: Park = (waiting) => waiting;

/** What handling one output did; every refusal or failure is thrown with a reason instead. */
export type OutputHandled =
  | {
      readonly outcome: 'dropped';
      readonly reason: PromptDropReason | 'already_delivered' | 'superseded';
    }
  | { readonly outcome: 'tombstoned' }
  | { readonly outcome: 'posted'; readonly messageRef: MessageRef }
  | { readonly outcome: 'edited'; readonly view: PromptViewKind }
  /** The message could not be edited for good, so a new one shows the prompt (R4). */
  | { readonly outcome: 'reposted'; readonly view: PromptViewKind; readonly messageRef: MessageRef }
  /** The platform refused the post for good; the session was told (R2). */
  | { readonly outcome: 'undeliverable'; readonly reason: string }
  | { readonly outcome: 'noticed' }
  | { readonly outcome: 'text_posted'; readonly messageRef: MessageRef }
  /** The lease ran out during the effect and another handler took over; it will finish. */
  | { readonly outcome: 'lease_lost' };

/**
 * An unfinished post is looked for before each new claim; more than this many in a row means
 * replicas keep dying mid-post, and JetStream's retry is the better place to wait.
 */
const MAX_CLAIMS = 3;

/**
 * The longest a message waits behind another handler's lease before looking again. A live
 * holder normally finishes within one platform call, so waiting out the whole lease (up to
 * 2 × ack_wait) would hold a prompt's next output back for nothing; when the holder did die,
 * the runner's growing delay reaches the end of its lease in a few cheap retries.
 */
export const LEASED_RETRY_MAX_MS = 250;

type Delivery<T> =
  { readonly kind: 'already_delivered' } | { readonly kind: 'delivered'; readonly result: T };

/** One delivery's platform call, and how to find what an unfinished earlier attempt left. */
interface DeliveryEffect<T> {
  readonly deliver: () => Promise<T>;
  readonly find?: () => Promise<T | undefined>;
}

/**
 * The consumer's work for one output (docs/architecture.md §4.1): validate; claim the prompt in a
 * short transaction; make the chat effect outside any transaction; journal it in a second
 * short transaction. Throws TransientFailure (nak with delay) or PermanentFailure /
 * InvalidPayload (dead-letter), each with a reason code; returning means ack.
 */
export class HandleOutput {
  private readonly inSessionOrder = new SessionSequencer();
  /** Per prompt, the newest seq among the outputs this replica holds: older refreshes skip. */
  private readonly newestHeld = new Map<string, number>();

  constructor(private readonly deps: HandleOutputDeps) {}

  /**
   * As a delivery arrives, before it takes a handler slot: a refresh the platform has no room
   * for now is parked (the delivery is acked once it is stored) and shown later by the
   * owed-refresh sweeper; everything else is handled as usual.
   */
  triage(subject: string, data: Uint8Array): TriageVerdict | undefined {
    const { pacer, adapter, owedRefreshes, subjects } = this.deps;
    if (!pacer || !owedRefreshes || !adapter.rateBuckets || !subject.endsWith('.update')) {
      return undefined;
    }
    // Validated as the handler would; what it would refuse, it refuses (and dead-letters).
    const parsed = parseOutputForSubject(subjects, subject, data);
    if (!parsed.ok || parsed.value.type !== 'ToolInteractionUpdate') return undefined;
    const output = parsed.value;
    if (priorityOf(output) !== 'refresh' || output.conversation.platform !== adapter.platform) {
      return undefined;
    }
    const conversation = output.conversation;
    if (pacer.admitRefresh(adapter.rateBuckets({ effect: 'edit_prompt', conversation }))) {
      return undefined;
    }
    return { absorbed: owedRefreshes.owe(output) };
  }

  /** A parked refresh, shown now: in its session's order, like any output. */
  handleOwed(output: ToolInteractionUpdate): Promise<OutputHandled> {
    return this.inSessionOrder.run(output.sessionId, () => this.execute(output));
  }

  /**
   * Validates a delivery against the subject it came on, then handles it once the outputs of
   * its session that reached this replica before it are done.
   */
  async handleMessage(
    subject: string,
    data: Uint8Array,
    park: Park = inPlace,
  ): Promise<OutputHandled> {
    const parsed = parseOutputForSubject(this.deps.subjects, subject, data);
    if (!parsed.ok) throw new InvalidPayload(`${parsed.reason}: ${parsed.detail}`);
    const output = parsed.value;
    if (output.type === 'TextOutput' || output.type === 'ToolInteractionRejected') {
      return this.inSessionOrder.run(output.sessionId, () => this.execute(output, park), park);
    }
    // Several outputs of one prompt held at once: only the newest visible state is rendered.
    const key = `${output.sessionId}\u0000${output.callId}`;
    this.newestHeld.set(key, Math.max(this.newestHeld.get(key) ?? 0, output.seq));
    try {
      return await this.inSessionOrder.run(
        output.sessionId,
        () => this.execute(output, park),
        park,
      );
    } finally {
      if (this.newestHeld.get(key) === output.seq) this.newestHeld.delete(key);
    }
  }

  async execute(output: Output, park: Park = inPlace): Promise<OutputHandled> {
    const { adapter, sessions } = this.deps;
    if (output.conversation.platform !== adapter.platform) {
      // Only a misrouted consumer gets here; retrying would never help.
      throw new PermanentFailure(
        `wrong_platform: a ${output.conversation.platform} output reached the ${adapter.platform} binding`,
      );
    }
    if (output.type === 'TextOutput' || output.type === 'ToolInteractionRejected') {
      // Its call is known before any database work, so it waits for its bucket first: a burst
      // into one channel then costs the database nothing until each reply's turn comes, and
      // no delivery lease runs out while it waits. A slot taken for an output already
      // delivered is one call's room wasted, rarely.
      await this.pace(deliveryCall(output), 'urgent', park);
    }
    await sessions.remember(output.sessionId, output.conversation);
    switch (output.type) {
      case 'TextOutput':
        return this.postText(output);
      case 'ToolInteractionRejected':
        return this.notice(output);
      case 'ToolInteractionRequest':
      case 'ToolInteractionUpdate':
      case 'ToolInteractionResolved':
        return this.applyToPrompt(output, park);
    }
  }

  private async applyToPrompt(output: OrderedCallOutput, park: Park): Promise<OutputHandled> {
    const { prompts, replicaId, leaseMs } = this.deps;
    const key = { sessionId: output.sessionId, callId: output.callId };
    const log = this.logFor(output);
    const priority = priorityOf(output);
    const newest = this.newestHeld.get(`${output.sessionId}\u0000${output.callId}`) ?? 0;
    if (priority === 'refresh' && newest > output.seq) {
      log.debug({ newestSeq: newest }, 'refresh superseded by a newer output held here');
      return { outcome: 'dropped', reason: 'superseded' };
    }
    for (let attempt = 1; attempt <= MAX_CLAIMS; attempt += 1) {
      const claim = await prompts.claim(
        { key, conversation: output.conversation, owner: replicaId, leaseMs },
        (state) => decidePrompt(state, output),
      );
      switch (claim.kind) {
        case 'leased':
          log.debug({ leaseOwner: claim.owner, retryAfterMs: claim.retryAfterMs }, 'prompt leased');
          throw new TransientFailure('prompt_leased', {
            retryAfterMs: Math.min(claim.retryAfterMs, LEASED_RETRY_MAX_MS),
          });
        case 'settled':
          if (claim.decision.kind === 'tombstone') {
            log.info('prompt cleared before it was shown (tombstone)');
            return { outcome: 'tombstoned' };
          }
          log.debug({ reason: claim.decision.reason }, 'output dropped');
          return { outcome: 'dropped', reason: claim.decision.reason };
        case 'unfinished_post':
          await this.settleUnfinishedPost(claim, log);
          continue;
        case 'claimed':
          return this.makeEffect(claim, log, priority, park);
      }
    }
    throw new TransientFailure('prompt_unsettled');
  }

  private async makeEffect(
    claim: Extract<PromptClaim, { kind: 'claimed' }>,
    log: Logger,
    priority: CallPriority,
    park: Park,
  ): Promise<OutputHandled> {
    const { adapter, prompts } = this.deps;
    const { decision, target, lease } = claim;
    let shownAt: MessageRef;
    // A platform that deduplicates retried posts may answer with an earlier attempt's post:
    // the journal takes the nonce that post carries.
    let shownNonce: string | undefined;
    const call: PacedCall =
      decision.kind === 'post'
        ? { effect: 'post_prompt', conversation: target.conversation }
        : { effect: 'edit_prompt', conversation: target.conversation, ref: decision.messageRef };
    try {
      await this.pace(call, priority, park);
      switch (decision.kind) {
        case 'post': {
          const posted = await adapter.postPrompt(target, decision.view);
          shownAt = { channelId: posted.channelId, messageId: posted.messageId };
          shownNonce = posted.postNonce;
          break;
        }
        case 'edit':
          await adapter.editPrompt(target, decision.messageRef, decision.view);
          shownAt = decision.messageRef;
          break;
      }
    } catch (error) {
      const failure = classifyPlatformFailure(adapter, error);
      if (failure.kind === 'permanent') {
        if (decision.kind === 'post') return this.undeliverable(claim, failure, log);
        return this.repost(claim, failure, log, park);
      }
      // A post that got no answer may still be made: its prompt stays held until it could
      // have landed, so the look that follows sees it instead of posting a second prompt.
      const holdMs =
        decision.kind === 'post' && failure.unanswered ? (this.deps.landingMs ?? 0) : 0;
      await this.releasePrompt(lease, log, holdMs);
      const thrown = this.rateLimited(
        call,
        effectFailure(adapter, decision.kind === 'post' ? 'post_prompt' : 'edit_prompt', error),
      );
      if (holdMs > 0) {
        log.info(
          { holdMs, reason: failure.reason },
          'a post got no answer; held until it could have landed',
        );
        throw new TransientFailure(thrown.message, { retryAfterMs: holdMs, cause: error });
      }
      throw thrown;
    }
    const journaled =
      shownNonce === undefined || shownNonce === lease.postNonce
        ? lease
        : { ...lease, postNonce: shownNonce };
    if (!(await prompts.complete(journaled, effectEvents(decision, shownAt)))) {
      log.warn(
        { effect: decision.kind },
        'prompt lease lost during the effect; its new holder finishes',
      );
      return { outcome: 'lease_lost' };
    }
    log.info(
      { effect: decision.kind, view: decision.view.kind, messageRef: shownAt },
      'prompt shown',
    );
    return decision.kind === 'post'
      ? { outcome: 'posted', messageRef: shownAt }
      : { outcome: 'edited', view: decision.view.kind };
  }

  /**
   * The platform refused the prompt's post for good (channel gone, bot removed): nothing is
   * out there, so the intent ends with no event, and the session is told, so that it expires
   * the call instead of waiting for an answer that cannot come (docs/protocol.md §4). A publish
   * that fails is retried with the whole output; the command's id makes the repeat harmless.
   */
  private async undeliverable(
    claim: Extract<PromptClaim, { kind: 'claimed' }>,
    failure: Extract<PlatformFailure, { kind: 'permanent' }>,
    log: Logger,
  ): Promise<OutputHandled> {
    const { prompts, commands, now } = this.deps;
    const { request } = claim.decision.view;
    const reason = (failure.platformCode ?? failure.reason).slice(0, LIMITS.undeliverableReason);
    if (!(await prompts.complete(claim.lease, []))) return { outcome: 'lease_lost' };
    try {
      await commands.publish({
        type: 'ToolInteractionUndeliverable',
        v: PROTOCOL_VERSION,
        id: undeliverableCommandId(request.id),
        sessionId: request.sessionId,
        conversation: request.conversation,
        occurredAt: now().toISOString(),
        callId: request.callId,
        reason,
        ...(request.agent === undefined ? {} : { agent: request.agent }),
      });
    } catch (error) {
      throw new TransientFailure('undeliverable_unpublished', { cause: error });
    }
    log.warn(
      { reason: failure.reason, platformCode: reason },
      'the platform refused the prompt for good; the session was told it is undeliverable',
    );
    return { outcome: 'undeliverable', reason };
  }

  /**
   * The tracked message cannot be edited for good (deleted, edit window closed, the platform
   * no longer knows it): a new message shows the current state instead — the outcome without
   * buttons, or a prompt still answerable — with a new nonce, and the journal follows it, so
   * no output is dead-lettered while buttons look alive. A repost the platform refuses too is
   * dead-lettered like any permanent failure.
   */
  private async repost(
    claim: Extract<PromptClaim, { kind: 'claimed' }>,
    failure: Extract<PlatformFailure, { kind: 'permanent' }>,
    log: Logger,
    park: Park,
  ): Promise<OutputHandled> {
    const { adapter, prompts } = this.deps;
    const { decision, lease } = claim;
    if (decision.kind !== 'edit') throw new Error('only an edit is reposted');
    const postNonce = newPostNonce();
    // A new message draws on the platform's posting limits like any post.
    const call: PacedCall = { effect: 'post_prompt', conversation: claim.target.conversation };
    let messageRef: MessageRef;
    try {
      await this.pace(call, 'urgent', park);
      const posted = await adapter.postPrompt(
        { ...claim.target, postNonce, idempotencyKey: `${claim.target.promptRef}r${postNonce}` },
        decision.view,
      );
      messageRef = { channelId: posted.channelId, messageId: posted.messageId };
    } catch (error) {
      await this.releasePrompt(lease, log);
      throw this.rateLimited(call, effectFailure(adapter, 'post_prompt', error));
    }
    const events: PromptEvent[] = [
      {
        type: 'PendingApprovalPromptReposted',
        seq: decision.event.seq,
        messageRef,
        replaced: decision.messageRef,
        reason: `edit_prompt: ${failure.reason}`,
      },
      decision.event,
    ];
    if (!(await prompts.complete({ ...lease, postNonce }, events))) {
      log.warn('prompt lease lost during the repost; its new holder finishes');
      return { outcome: 'lease_lost' };
    }
    log.warn(
      {
        reason: failure.reason,
        replaced: decision.messageRef,
        messageRef,
        view: decision.view.kind,
      },
      'the prompt message could not be edited; a new message shows it',
    );
    return { outcome: 'reposted', view: decision.view.kind, messageRef };
  }

  /**
   * A post that may have reached the platform without being journaled (a crash, or a timeout
   * after the platform accepted it): adopt it if the platform can find it, so the prompt is
   * never posted twice; otherwise forget the intent and decide afresh.
   */
  private async settleUnfinishedPost(
    claim: Extract<PromptClaim, { kind: 'unfinished_post' }>,
    log: Logger,
  ): Promise<void> {
    const { adapter, prompts, now, reconcileForMs } = this.deps;
    const waitedMs = now().getTime() - claim.since.getTime();
    let found: FoundPrompt | undefined;
    try {
      found = await adapter.findPostedPrompt?.(claim.target, claim.since);
    } catch (error) {
      const failure = classifyPlatformFailure(adapter, error);
      if (failure.kind === 'transient' && waitedMs < reconcileForMs) {
        await this.releasePrompt(claim.lease, log);
        throw effectFailure(adapter, 'find_posted_prompt', error);
      }
      // R3: a look that can never succeed (a missing scope) or has failed for too long must
      // not block every later output of the prompt. Settled as never posted: a Request is
      // posted afresh, a later Update or Resolved journals a tombstone and shows nothing.
      log.warn(
        { reason: failure.reason, kind: failure.kind, waitedMs },
        'could not look for an unfinished post; settling it as never posted',
      );
      found = undefined;
    }
    // The post found may be an earlier attempt's, with that attempt's nonce: the journal
    // takes the nonce the post carries, so its buttons are believed.
    const events =
      found === undefined
        ? []
        : [trackedEvent(claim.intent, { channelId: found.channelId, messageId: found.messageId })];
    const lease =
      found?.postNonce === undefined ? claim.lease : { ...claim.lease, postNonce: found.postNonce };
    if (await prompts.complete(lease, events)) {
      log.info(
        { found: found !== undefined, messageRef: found },
        found === undefined
          ? 'unfinished post not on the platform; deciding afresh'
          : 'unfinished post found on the platform; adopted',
      );
    }
  }

  private async notice(output: ToolInteractionRejected): Promise<OutputHandled> {
    const { adapter, prompts } = this.deps;
    const log = this.logFor(output);
    const state = await prompts.stateOf({ sessionId: output.sessionId, callId: output.callId });
    const decision = decidePrompt(state, output);
    if (decision.kind !== 'notice') {
      throw new Error(`a Rejected decided ${decision.kind}, not a notice`);
    }
    const delivery = await this.deliverOnce(output, 'notice', log, {
      deliver: async () => {
        await adapter.sendNotice(output.conversation, decision.to, decision.text, decision.near);
      },
    });
    return delivery.kind === 'already_delivered'
      ? { outcome: 'dropped', reason: 'already_delivered' }
      : { outcome: 'noticed' };
  }

  private async postText(output: TextOutput): Promise<OutputHandled> {
    const { adapter } = this.deps;
    const log = this.logFor(output);
    // The post carries the output id so that a retry after an attempt that never finished (a
    // crash, or a timeout after the platform accepted the post) finds it instead of repeating
    // the reply.
    const find = adapter.findPostedText?.bind(adapter);
    const delivery = await this.deliverOnce(output, 'text', log, {
      deliver: () =>
        adapter.postText(output.conversation, output.text, output.role, output.id, output.mention),
      ...(find === undefined ? {} : { find: () => find(output.conversation, output.id) }),
    });
    return delivery.kind === 'already_delivered'
      ? { outcome: 'dropped', reason: 'already_delivered' }
      : { outcome: 'text_posted', messageRef: delivery.result };
  }

  /**
   * Delivers an output once by its id, under a lease. A crash or a timeout between the
   * platform call and the journal write leaves the output undelivered, so it is delivered
   * again: `find` (a text post, by its output id) first looks for what the earlier attempt
   * may have left on the platform and adopts it; a private notice, which no platform lets a
   * bot read back, may be shown twice.
   */
  private async deliverOnce<T extends MessageRef | void>(
    output: TextOutput | ToolInteractionRejected,
    kind: DeliveryKind,
    log: Logger,
    effect: DeliveryEffect<T>,
  ): Promise<Delivery<T>> {
    const { deliveries, replicaId, leaseMs } = this.deps;
    const claim = await deliveries.claim({ outputId: output.id, kind, owner: replicaId, leaseMs });
    switch (claim.kind) {
      case 'delivered':
        log.debug({ kind }, 'output already delivered');
        return { kind: 'already_delivered' };
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
    // Paced before the claim (execute).
    const paced = deliveryCall(output);
    const result =
      found ??
      (await this.underDeliveryLease(claim.lease, log, paced.effect, effect.deliver, paced));
    if (await deliveries.complete(claim.lease, result ?? undefined)) {
      log.info({ kind }, 'output delivered');
    } else {
      log.warn({ kind }, 'delivery lease lost during the effect; its new holder finishes');
    }
    return { kind: 'delivered', result };
  }

  /** One platform call under a delivery lease: a failure ends the lease and says how to retry. */
  private async underDeliveryLease<R>(
    lease: DeliveryLease,
    log: Logger,
    effect: PlatformEffect,
    call: () => Promise<R>,
    paced?: PacedCall,
  ): Promise<R> {
    try {
      return await call();
    } catch (error) {
      await this.releaseDelivery(lease, log);
      const failure = effectFailure(this.deps.adapter, effect, error);
      throw paced === undefined ? failure : this.rateLimited(paced, failure);
    }
  }

  /**
   * Waits for room in the call's rate-limit buckets, parked: a burst into one bucket (150
   * mentions in one channel) must not hold the slots every other bucket's work needs.
   */
  private async pace(call: PacedCall, priority: CallPriority, park: Park): Promise<void> {
    const { pacer, adapter } = this.deps;
    if (pacer === undefined || adapter.rateBuckets === undefined) return;
    const buckets = adapter.rateBuckets(call);
    if (pacer.tryTake(buckets, priority)) return;
    // A refresh was admitted only if it could start within moments (triage parks the rest in
    // owed_refreshes): it waits in its slot, which keeps a restart's refreshes from crowding
    // the database while new prompts need it.
    const waiting = pacer.enqueue(buckets, priority);
    await (priority === 'refresh' ? waiting : park(waiting));
  }

  /** A 429 is a signal: the call's buckets stop for its Retry-After. Returns the failure. */
  private rateLimited<F extends Error>(call: PacedCall, failure: F): F {
    const { pacer, adapter } = this.deps;
    if (
      pacer !== undefined &&
      adapter.rateBuckets !== undefined &&
      failure instanceof TransientFailure &&
      failure.reason.includes('rate_limited')
    ) {
      pacer.blocked(
        adapter.rateBuckets(call).filter((bucket) => bucket.notBlockedBy429 !== true),
        failure.retryAfterMs ?? 1_000,
      );
    }
    return failure;
  }

  // A release that fails only makes the retry wait for the lease to run out.
  private async releasePrompt(lease: PromptLease, log: Logger, holdMs = 0): Promise<void> {
    await this.deps.prompts.release(lease, holdMs).catch((error: unknown) => {
      log.warn({ err: error }, 'could not release the prompt lease; it will run out');
    });
  }

  private async releaseDelivery(lease: DeliveryLease, log: Logger): Promise<void> {
    await this.deps.deliveries.release(lease).catch((error: unknown) => {
      log.warn({ err: error }, 'could not release the delivery lease; it will run out');
    });
  }

  private logFor(output: Output): Logger {
    return this.deps.logger.child({
      platform: output.conversation.platform,
      sessionId: output.sessionId,
      ...(output.type === 'TextOutput' ? {} : { callId: output.callId }),
      outputId: output.id,
      outputType: output.type,
    });
  }
}

/** The platform call that delivers a reply or a notice. */
function deliveryCall(output: TextOutput | ToolInteractionRejected): PacedCall {
  return {
    effect: output.type === 'TextOutput' ? 'post_text' : 'send_notice',
    conversation: output.conversation,
  };
}
