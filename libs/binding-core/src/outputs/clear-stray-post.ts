import type { Logger } from 'pino';
import type { CallPriority } from '../pacing/rate-limit-pacer';
import type {
  MessageRef,
  PacedCall,
  PlatformAdapter,
  PromptTarget,
} from '../platform-adapter.port';
import type { EditDecision } from '../prompt/prompt-decision';
import { classifyPlatformFailure } from './effect-failure';
import type { PacedPlatformCall, Park } from './paced-platform-call';

export interface ClearStrayPostDeps {
  readonly adapter: PlatformAdapter;
  readonly calls: PacedPlatformCall;
}

/** The clearing edit just journaled, and what it needs to show the same on a stray post. */
export interface StrayPostClearing {
  readonly target: PromptTarget;
  /** When the post that may have landed untracked was set out on. */
  readonly straySince: Date;
  /** The post the journal tracks, which the clearing edit has just changed. */
  readonly tracked: MessageRef;
  readonly decision: EditDecision;
}

/**
 * R3: the prompt was posted afresh because the look for an earlier, unfinished post kept
 * failing. That earlier post may have landed after all, with live buttons nobody tracks. Once
 * the prompt is cleared, the same outcome is shown on it too, so it does not keep buttons
 * whose answer would be refused.
 *
 * Best effort, after the journal has the outcome: the output is handled whatever this does,
 * and a failed look or edit is logged (the stray post's clicks are still answered with the
 * session's refusal, which is what they got before this existed).
 */
export async function clearStrayPost(
  deps: ClearStrayPostDeps,
  clearing: StrayPostClearing,
  log: Logger,
  priority: CallPriority,
  park: Park,
): Promise<void> {
  const { adapter, calls } = deps;
  const { target, straySince, tracked, decision } = clearing;
  if (adapter.findPostedPrompt === undefined) return;
  try {
    const stray = await adapter.findPostedPrompt(target, straySince, tracked);
    if (stray === undefined) {
      log.debug('no stray post of the cleared prompt on the platform');
      return;
    }
    const ref: MessageRef = { channelId: stray.channelId, messageId: stray.messageId };
    const call: PacedCall = { effect: 'edit_prompt', conversation: target.conversation, ref };
    await calls.pace(call, priority, park);
    const strayTarget =
      stray.postNonce === undefined ? target : { ...target, postNonce: stray.postNonce };
    await adapter.editPrompt(strayTarget, ref, decision.view);
    log.warn(
      { stray: ref, tracked, view: decision.view.kind },
      'a stray post of the prompt was found and shows its outcome too',
    );
  } catch (error) {
    const failure = classifyPlatformFailure(adapter, error);
    log.warn(
      { reason: failure.reason, kind: failure.kind, tracked },
      'could not look for or clear a stray post of the cleared prompt',
    );
  }
}
