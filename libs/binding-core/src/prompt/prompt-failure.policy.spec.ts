import { LIMITS } from '@tollgate/protocol';
import type { PlatformFailure } from '../platform-adapter.port';
import {
  decidePromptFailure,
  type PromptEffectKind,
  type PromptFailureContext,
} from './prompt-failure.policy';

const answered: PlatformFailure = { kind: 'transient', reason: 'slack_ratelimited' };
const unanswered: PlatformFailure = { kind: 'transient', reason: 'timeout', unanswered: true };
const refused: PlatformFailure = {
  kind: 'permanent',
  reason: 'slack_channel_not_found',
  platformCode: 'channel_not_found',
};
const refusedWithoutCode: PlatformFailure = { kind: 'permanent', reason: 'missing_scope' };
const context: PromptFailureContext = { landingMs: 5_000 };

/** Given a failed effect, when the policy decides: then this is what the shell does. */
function when(effect: PromptEffectKind, failure: PlatformFailure, given = context) {
  return decidePromptFailure(effect, failure, given);
}

describe('D3 the prompt’s failure policy, given/when/then', () => {
  describe('a post', () => {
    it('D3 refused for good tells the session the prompt is undeliverable, with the platform’s code (R2)', () => {
      expect(when('post', refused)).toEqual({
        kind: 'tell_undeliverable',
        reason: 'channel_not_found',
      });
      expect(when('post', refusedWithoutCode)).toEqual({
        kind: 'tell_undeliverable',
        reason: 'missing_scope',
      });
    });

    it('D3 the reason the session is told fits the protocol’s limit', () => {
      const long: PlatformFailure = { kind: 'permanent', reason: 'x'.repeat(5_000) };
      const action = when('post', long);
      expect(action.kind === 'tell_undeliverable' && action.reason.length).toBe(
        LIMITS.undeliverableReason,
      );
    });

    it('D3 that got no answer keeps its prompt held until it could have landed', () => {
      expect(when('post', unanswered)).toEqual({ kind: 'release', holdMs: 5_000 });
      expect(when('post', unanswered, { landingMs: 0 })).toEqual({ kind: 'release', holdMs: 0 });
    });

    it('D3 answered with a transient failure is released at once and retried', () => {
      expect(when('post', answered)).toEqual({ kind: 'release', holdMs: 0 });
    });
  });

  describe('an edit', () => {
    it('D3 refused for good is shown again in a new message (R4)', () => {
      expect(when('edit', refused)).toEqual({ kind: 'repost' });
    });

    it('D3 failing for now is released and retried, never held: an edit cannot duplicate', () => {
      expect(when('edit', answered)).toEqual({ kind: 'release', holdMs: 0 });
      expect(when('edit', unanswered)).toEqual({ kind: 'release', holdMs: 0 });
    });
  });

  describe('a repost', () => {
    it('D3 any failure releases the prompt; the runner retries it or dead-letters it', () => {
      for (const failure of [answered, unanswered, refused]) {
        expect(when('repost', failure)).toEqual({ kind: 'release', holdMs: 0 });
      }
    });
  });

  describe('the look for an unfinished post', () => {
    const young = { landingMs: 0, waitedMs: 1_000, reconcileForMs: 60_000 };
    const old = { landingMs: 0, waitedMs: 60_000, reconcileForMs: 60_000 };

    it('D3 failing for now while the post is young is retried', () => {
      expect(when('find', answered, young)).toEqual({ kind: 'release', holdMs: 0 });
      expect(when('find', unanswered, young)).toEqual({ kind: 'release', holdMs: 0 });
    });

    it('D3 that can never succeed, or has failed too long, settles the post as never made (R3)', () => {
      expect(when('find', refused, young)).toEqual({ kind: 'settle_as_never_posted' });
      expect(when('find', answered, old)).toEqual({ kind: 'settle_as_never_posted' });
    });

    it('D3 failing for now, however long, is retried for an output that only clears the prompt (R3: no tombstone over a post that may have landed)', () => {
      const clearing = { ...old, clears: true };
      expect(when('find', answered, clearing)).toEqual({ kind: 'release', holdMs: 0 });
      expect(when('find', unanswered, clearing)).toEqual({ kind: 'release', holdMs: 0 });
      expect(when('find', refused, clearing)).toEqual({ kind: 'settle_as_never_posted' });
    });
  });
});
