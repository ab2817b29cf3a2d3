import { LIMITS } from '@tollgate/protocol';
import type { PlatformFailure } from '../platform-adapter.port';

/**
 * The platform calls a prompt's claim can fail in: the post or edit its decision asked for, a
 * new message after an edit refused for good (R4), and the look for a post an earlier attempt
 * may have left (R3).
 */
export type PromptEffectKind = 'post' | 'edit' | 'repost' | 'find';

/** What the shell knows beside the failure: how long a post may take to land, how long a look may keep failing. */
export interface PromptFailureContext {
  /** How long a post that got no answer keeps its prompt held (HandleOutputDeps.landingMs). */
  readonly landingMs: number;
  /** For `find`: since the unfinished post was set out on, and how long it may be looked for. */
  readonly waitedMs?: number;
  readonly reconcileForMs?: number;
  /**
   * For `find`: the output waiting on the look only clears the prompt (a `Resolved`, an
   * `Expired`, an `Abandoned`). Nothing of the prompt comes after it, so its wait blocks
   * nothing, and settling the post as never made would journal a tombstone over a post that
   * may have landed — live buttons nobody would ever take away.
   */
  readonly clears?: boolean;
}

/** What the shell does about a failed platform call, decided without I/O. */
export type PromptFailureAction =
  /** Nothing is out there and never will be: end the intent and tell the session (R2). */
  | { readonly kind: 'tell_undeliverable'; readonly reason: string }
  /** The tracked message cannot be edited: a new message shows the state instead (R4). */
  | { readonly kind: 'repost' }
  /**
   * End the claim (held `holdMs` more when a post may still land) and hand the failure to the
   * runner: it retries a transient one with a delay, dead-letters a permanent one.
   */
  | { readonly kind: 'release'; readonly holdMs: number }
  /** The look cannot succeed, or has failed too long: the post is settled as never made (R3). */
  | { readonly kind: 'settle_as_never_posted' };

/**
 * The prompt's failure routing as a table (docs/architecture.md §4.1), beside decidePrompt:
 *
 * | effect | transient, answered | transient, unanswered  | permanent          |
 * |--------|---------------------|------------------------|--------------------|
 * | post   | release             | release, held landingMs| tell_undeliverable |
 * | edit   | release             | release                | repost             |
 * | repost | release             | release                | release (→ DLQ)    |
 * | find   | release while young (or clearing), else settle_as_never_posted | ← | settle_as_never_posted |
 *
 * Held only for a post: an edit or a repost that got no answer changes nothing a second
 * attempt could duplicate (a repost is journaled under a new nonce, an edit is idempotent).
 */
export function decidePromptFailure(
  effect: PromptEffectKind,
  failure: PlatformFailure,
  context: PromptFailureContext,
): PromptFailureAction {
  switch (effect) {
    case 'post':
      if (failure.kind === 'permanent') {
        return {
          kind: 'tell_undeliverable',
          reason: (failure.platformCode ?? failure.reason).slice(0, LIMITS.undeliverableReason),
        };
      }
      return { kind: 'release', holdMs: failure.unanswered ? context.landingMs : 0 };
    case 'edit':
      return failure.kind === 'permanent' ? { kind: 'repost' } : { kind: 'release', holdMs: 0 };
    case 'repost':
      return { kind: 'release', holdMs: 0 };
    case 'find': {
      // A clearing output waits out a look that fails for now, however long: the runner
      // retries it for a day, then dead-letters it where an operator sees it.
      const keepLooking =
        context.clears === true || (context.waitedMs ?? 0) < (context.reconcileForMs ?? 0);
      return failure.kind === 'transient' && keepLooking
        ? { kind: 'release', holdMs: 0 }
        : { kind: 'settle_as_never_posted' };
    }
  }
}
