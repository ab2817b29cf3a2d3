import type { PlatformFailure } from '../platform-adapter.port';
import type { PlatformEffect } from './effect-failure';

/** What the shell knows beside a failed delivery call. */
export interface DeliveryFailureContext {
  /** How long a post that got no answer may still take to land (HandleOutputDeps.landingMs). */
  readonly landingMs: number;
  /** Whether a retry looks for what this attempt left on the platform (a text, by its id). */
  readonly findable: boolean;
}

/**
 * How long a failed reply or notice keeps its delivery lease before a retry may claim it
 * (R3, as decidePromptFailure's `post` row): a post that got no answer (a timeout, a dropped
 * connection) may still be made by the platform, and a retry that looked at once would find
 * nothing and post the reply a second time. Held, the retry looks after it could have landed
 * and adopts it. Not held: a failure the platform answered (it made nothing), the look itself,
 * and a notice, which no retry can find, so waiting would only delay its second showing.
 */
export function deliveryHoldMs(
  effect: PlatformEffect,
  failure: PlatformFailure,
  context: DeliveryFailureContext,
): number {
  const mayLand = failure.kind === 'transient' && failure.unanswered === true;
  return effect === 'post_text' && mayLand && context.findable ? context.landingMs : 0;
}
