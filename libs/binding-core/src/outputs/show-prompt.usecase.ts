import { TransientFailure } from '@tollgate/messaging';
import {
  MAX_GROUP_MEMBERS,
  PROTOCOL_VERSION,
  type ToolInteractionRequest,
  undeliverableCommandId,
} from '@tollgate/protocol';
import type { Logger } from 'pino';
import type { CommandPublisher } from '../inbound/command-publisher.port';
import type { PromptClaim, PromptJournal, PromptLease } from '../journal/prompt-journal.port';
import type { CallPriority } from '../pacing/rate-limit-pacer';
import type { FoundPrompt, MessageRef, PacedCall, PlatformAdapter } from '../platform-adapter.port';
import { decidePromptFailure } from '../prompt/prompt-failure.policy';
import type { PromptEvent } from '../prompt/prompt-event';
import {
  decidePrompt,
  effectEvents,
  trackedEvent,
  type OrderedCallOutput,
} from '../prompt/prompt-lifecycle.decider';
import { newPostNonce } from '../prompt/post-nonce';
import type { OutputHandled } from './output-handled';
import { classifyPlatformFailure, effectFailure } from './effect-failure';
import { LEASED_RETRY_MAX_MS } from './deliver-once.usecase';
import type { PacedPlatformCall, Park } from './paced-platform-call';
import { reportPromptShown } from './report-prompt-shown';

export interface ShowPromptDeps {
  readonly prompts: PromptJournal;
  readonly adapter: PlatformAdapter;
  readonly commands: CommandPublisher;
  readonly calls: PacedPlatformCall;
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly reconcileForMs: number;
  readonly landingMs: number;
  readonly now: () => Date;
}

type Claimed = Extract<PromptClaim, { kind: 'claimed' }>;

/** A prompt names approver groups on a platform whose binding cannot read them. */
export class ApproverGroupsUnsupported extends Error {
  constructor(platform: string) {
    super(`the ${platform} binding cannot resolve approver groups`);
  }
}

/**
 * An unfinished post is looked for before each new claim; more than this many in a row means
 * replicas keep dying mid-post, and JetStream's retry is the better place to wait.
 */
const MAX_CLAIMS = 3;

/**
 * Shows a prompt's output (docs/architecture.md §4.1): claim the prompt in a short
 * transaction, deciding with decidePrompt; make the chat effect outside any transaction;
 * journal it in a second short one. What a failed call leads to is decidePromptFailure's.
 */
export class ShowPrompt {
  constructor(private readonly deps: ShowPromptDeps) {}

  async apply(
    output: OrderedCallOutput,
    log: Logger,
    priority: CallPriority,
    park: Park,
  ): Promise<OutputHandled> {
    const { prompts, replicaId, leaseMs } = this.deps;
    const key = { sessionId: output.sessionId, callId: output.callId };
    for (let attempt = 1; attempt <= MAX_CLAIMS; attempt += 1) {
      const claim = await prompts.claim(
        {
          key,
          conversation: output.conversation,
          owner: replicaId,
          leaseMs,
          // A Request never edits; an Update or a Resolved edits a pending prompt older than it.
          ...(output.type === 'ToolInteractionRequest' ? {} : { editsPendingBefore: output.seq }),
        },
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
    claim: Claimed,
    log: Logger,
    priority: CallPriority,
    park: Park,
  ): Promise<OutputHandled> {
    const { adapter, prompts, calls } = this.deps;
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
      await calls.pace(call, priority, park);
      if (decision.kind === 'post') {
        await this.resolveApproverGroups(claim);
        const posted = await adapter.postPrompt(target, decision.view);
        shownAt = { channelId: posted.channelId, messageId: posted.messageId };
        shownNonce = posted.postNonce;
      } else {
        await adapter.editPrompt(target, decision.messageRef, decision.view);
        shownAt = decision.messageRef;
      }
    } catch (error) {
      const failure = classifyPlatformFailure(adapter, error);
      const action = decidePromptFailure(decision.kind, failure, {
        landingMs: this.deps.landingMs,
      });
      switch (action.kind) {
        case 'tell_undeliverable':
          return this.undeliverable(claim, action.reason, failure.reason, log);
        case 'repost':
          return this.repost(claim, failure.reason, log, park);
        case 'release':
        case 'settle_as_never_posted':
          break;
      }
      const holdMs = action.kind === 'release' ? action.holdMs : 0;
      await this.releasePrompt(lease, log, holdMs);
      const thrown = calls.rateLimited(call, effectFailure(adapter, call.effect, error));
      if (holdMs > 0) {
        // A post that got no answer may still be made: its prompt stays held until it could
        // have landed, so the look that follows sees it instead of posting a second prompt.
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
    if (decision.kind === 'post')
      await this.reportShown(decision.view.request, shownAt, 'posted', log);
    return decision.kind === 'post'
      ? { outcome: 'posted', messageRef: shownAt }
      : { outcome: 'edited', view: decision.view.kind };
  }

  /**
   * G1: a prompt naming approver groups has their members read from the platform just before
   * it is posted, and journaled with it, so every later answer is judged by the same members.
   * A failure is the post's: retried when transient, undeliverable when the group is unknown.
   */
  private async resolveApproverGroups(claim: Claimed): Promise<void> {
    const groups = claim.decision.view.request.approverGroups;
    if (groups === undefined) return;
    const { adapter, prompts } = this.deps;
    if (adapter.resolveApproverGroup === undefined) {
      throw new ApproverGroupsUnsupported(adapter.platform);
    }
    const members: Record<string, readonly string[]> = {};
    for (const group of groups) {
      const ids = await adapter.resolveApproverGroup(claim.target.conversation, group.id);
      members[group.id] = ids.slice(0, MAX_GROUP_MEMBERS);
    }
    await prompts.recordApproverMembers(claim.lease, members);
  }

  /**
   * The platform refused the prompt's post for good (channel gone, bot removed): nothing is
   * out there, so the intent ends with no event, and the session is told, so that it expires
   * the call instead of waiting for an answer that cannot come (docs/protocol.md §4). A publish
   * that fails is retried with the whole output; the command's id makes the repeat harmless.
   */
  private async undeliverable(
    claim: Claimed,
    reason: string,
    why: string,
    log: Logger,
  ): Promise<OutputHandled> {
    const { prompts, commands, now } = this.deps;
    const { request } = claim.decision.view;
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
      { reason: why, platformCode: reason },
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
    claim: Claimed,
    why: string,
    log: Logger,
    park: Park,
  ): Promise<OutputHandled> {
    const { adapter, prompts, calls } = this.deps;
    const { decision, lease } = claim;
    if (decision.kind !== 'edit') throw new Error('only an edit is reposted');
    const postNonce = newPostNonce();
    // A new message draws on the platform's posting limits like any post.
    const call: PacedCall = { effect: 'post_prompt', conversation: claim.target.conversation };
    let messageRef: MessageRef;
    try {
      await calls.pace(call, 'urgent', park);
      const posted = await adapter.postPrompt(
        { ...claim.target, postNonce, idempotencyKey: `${claim.target.promptRef}r${postNonce}` },
        decision.view,
      );
      messageRef = { channelId: posted.channelId, messageId: posted.messageId };
    } catch (error) {
      // decidePromptFailure('repost', …) is always a release: the runner retries or dead-letters.
      await this.releasePrompt(lease, log);
      throw calls.rateLimited(call, effectFailure(adapter, 'post_prompt', error));
    }
    const events: PromptEvent[] = [
      {
        type: 'PendingApprovalPromptReposted',
        seq: decision.event.seq,
        messageRef,
        replaced: decision.messageRef,
        reason: `edit_prompt: ${why}`,
      },
      decision.event,
    ];
    if (!(await prompts.complete({ ...lease, postNonce }, events))) {
      log.warn('prompt lease lost during the repost; its new holder finishes');
      return { outcome: 'lease_lost' };
    }
    log.warn(
      { reason: why, replaced: decision.messageRef, messageRef, view: decision.view.kind },
      'the prompt message could not be edited; a new message shows it',
    );
    await this.reportShown(decision.view.request, messageRef, 'reposted', log);
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
      const action = decidePromptFailure('find', failure, {
        landingMs: 0,
        waitedMs,
        reconcileForMs,
      });
      if (action.kind === 'release') {
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
      if (found !== undefined) {
        await this.reportShown(claim.intent.view.request, found, 'posted', log);
      }
      log.info(
        { found: found !== undefined, messageRef: found },
        found === undefined
          ? 'unfinished post not on the platform; deciding afresh'
          : 'unfinished post found on the platform; adopted',
      );
    }
  }

  private reportShown(
    request: ToolInteractionRequest,
    messageRef: MessageRef,
    shown: 'posted' | 'reposted',
    log: Logger,
  ): Promise<void> {
    return reportPromptShown(this.deps, { request, messageRef, shown }, log);
  }

  // A release that fails only makes the retry wait for the lease to run out.
  private async releasePrompt(lease: PromptLease, log: Logger, holdMs = 0): Promise<void> {
    await this.deps.prompts.release(lease, holdMs).catch((error: unknown) => {
      log.warn({ err: error }, 'could not release the prompt lease; it will run out');
    });
  }
}
