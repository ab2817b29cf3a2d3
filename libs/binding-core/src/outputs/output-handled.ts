import type { MessageRef, PromptViewKind } from '../platform-adapter.port';
import type { PromptDropReason } from '../prompt/prompt-decision';

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
