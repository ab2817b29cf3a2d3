import type { MessageRef } from '../platform-adapter.port';

/** The outputs delivered once per output id rather than ordered by seq. */
export type DeliveryKind = 'text' | 'notice';

export interface DeliveryLease {
  readonly outputId: string;
  readonly claimId: string;
}

export interface DeliveryClaimRequest {
  readonly outputId: string;
  readonly kind: DeliveryKind;
  readonly owner: string;
  readonly leaseMs: number;
}

export type DeliveryClaim =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'leased'; readonly owner: string; readonly retryAfterMs: number }
  /** `retry`: an earlier attempt set out and never finished, so it may have reached the chat. */
  | { readonly kind: 'claimed'; readonly lease: DeliveryLease; readonly retry: boolean };

/**
 * A ledger of `TextOutput` posted and `Rejected` noticed, by output id, with the same lease as
 * prompts so two replicas never deliver one output at once.
 */
export interface DeliveredOutputs {
  claim(request: DeliveryClaimRequest): Promise<DeliveryClaim>;
  /** Marks it delivered; false when the lease was lost meanwhile. */
  complete(lease: DeliveryLease, messageRef?: MessageRef): Promise<boolean>;
  /**
   * Ends the lease after a failed effect so a retry need not wait it out; with `holdMs`, keeps
   * it that much longer instead (a post that may still land holds its output until it could
   * have, so the retry's look finds it).
   */
  release(lease: DeliveryLease, holdMs?: number): Promise<void>;
}
