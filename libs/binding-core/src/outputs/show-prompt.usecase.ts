import { TransientFailure } from '@tollgate/messaging';
import type { ToolInteractionRequest } from '@tollgate/protocol';
import type { Logger } from 'pino';
import type { CommandPublisher } from '../inbound/command-publisher.port';
import type { PromptClaim, PromptJournal } from '../journal/prompt-journal.port';
import type { CallPriority } from '../pacing/rate-limit-pacer';
import type { MessageRef, PacedCall, PlatformAdapter } from '../platform-adapter.port';
import { decidePromptFailure } from '../prompt/prompt-failure.policy';
import type { PromptEvent } from '../prompt/prompt-event';
import {
  decidePrompt,
  effectEvents,
  type OrderedCallOutput,
} from '../prompt/prompt-lifecycle.decider';
import { UNTRACKED } from '../prompt/prompt-state';
import { newPostNonce } from '../prompt/post-nonce';
import type { OutputHandled } from './output-handled';
import { clearStrayPost } from './clear-stray-post';
import { classifyPlatformFailure, effectFailure } from './effect-failure';
import { LEASED_RETRY_MAX_MS } from './deliver-once.usecase';
import type { PacedPlatformCall, Park } from './paced-platform-call';
import { releasePromptLease } from './release-prompt-lease';
import { reportPromptShown } from './report-prompt-shown';
import { resolveApproverGroups } from './resolve-approver-groups';
import { settleUnfinishedPost } from './settle-unfinished-post';
import { tellUndeliverable } from './tell-undeliverable';

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

/** The output only clears the prompt: were the post never made, it would show nothing. */
function clearsPrompt(output: OrderedCallOutput): boolean {
  return decidePrompt(UNTRACKED, output).kind === 'tombstone';
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
          await settleUnfinishedPost(this.deps, claim, log, clearsPrompt(output));
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
        await resolveApproverGroups(this.deps, claim);
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
          return tellUndeliverable(this.deps, claim, action.reason, failure.reason, log);
        case 'repost':
          return this.repost(claim, failure.reason, log, park);
        case 'release':
        case 'settle_as_never_posted':
          break;
      }
      const holdMs = action.kind === 'release' ? action.holdMs : 0;
      await releasePromptLease(this.deps.prompts, lease, log, holdMs);
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
    if (
      decision.kind === 'edit' &&
      decision.event.type === 'PendingApprovalPromptCleared' &&
      claim.straySince !== undefined
    ) {
      const clearing = { target, straySince: claim.straySince, tracked: shownAt, decision };
      await clearStrayPost(this.deps, clearing, log, priority, park);
    }
    return decision.kind === 'post'
      ? { outcome: 'posted', messageRef: shownAt }
      : { outcome: 'edited', view: decision.view.kind };
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
      await releasePromptLease(prompts, lease, log);
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

  private reportShown(
    request: ToolInteractionRequest,
    messageRef: MessageRef,
    shown: 'posted' | 'reposted',
    log: Logger,
  ): Promise<void> {
    return reportPromptShown(this.deps, { request, messageRef, shown }, log);
  }
}
