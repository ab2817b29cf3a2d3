import type { Logger } from 'pino';
import type { CommandPublisher } from '../inbound/command-publisher.port';
import type { PromptClaim, PromptJournal } from '../journal/prompt-journal.port';
import type { FoundPrompt, PlatformAdapter } from '../platform-adapter.port';
import { decidePromptFailure } from '../prompt/prompt-failure.policy';
import { trackedEvent } from '../prompt/prompt-lifecycle.decider';
import { classifyPlatformFailure, effectFailure } from './effect-failure';
import { releasePromptLease } from './release-prompt-lease';
import { reportPromptShown } from './report-prompt-shown';

export interface SettleUnfinishedPostDeps {
  readonly adapter: PlatformAdapter;
  readonly prompts: PromptJournal;
  readonly commands: CommandPublisher;
  readonly now: () => Date;
  /** How long an unfinished post is looked for while the look fails transiently (R3). */
  readonly reconcileForMs: number;
}

/**
 * A post that may have reached the platform without being journaled (a crash, or a timeout
 * after the platform accepted it): adopt it if the platform can find it, so the prompt is
 * never posted twice; otherwise forget the intent, so the next claim decides afresh.
 */
export async function settleUnfinishedPost(
  deps: SettleUnfinishedPostDeps,
  claim: Extract<PromptClaim, { kind: 'unfinished_post' }>,
  log: Logger,
  /** The output waiting on the look only clears the prompt (PromptFailureContext.clears). */
  clears = false,
): Promise<void> {
  const { adapter, prompts, now, reconcileForMs } = deps;
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
      clears,
    });
    if (action.kind === 'release') {
      await releasePromptLease(prompts, claim.lease, log);
      throw effectFailure(adapter, 'find_posted_prompt', error);
    }
    // R3: a look that can never succeed (a missing scope), or has failed too long for an
    // output that may show the prompt, must not block every later output of the prompt.
    // Settled as never posted: a Request is posted afresh, a clearing output journals a
    // tombstone and shows nothing.
    log.warn(
      { reason: failure.reason, kind: failure.kind, waitedMs },
      'could not look for an unfinished post; settling it as never posted',
    );
    found = undefined;
    // The post may have landed all the same: the output that clears the prompt looks for it
    // again, so it does not keep live buttons beside the one posted afresh.
    if (!clears) await prompts.recordStrayPost(claim.lease, claim.since);
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
      await reportPromptShown(
        deps,
        { request: claim.intent.view.request, messageRef: found, shown: 'posted' },
        log,
      );
    }
    log.info(
      { found: found !== undefined, messageRef: found },
      found === undefined
        ? 'unfinished post not on the platform; deciding afresh'
        : 'unfinished post found on the platform; adopted',
    );
  }
}
