/** The approval API's resource (docs/protocol.md, the approval API), as far as the gateway reads it. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';

export interface Approval {
  readonly id: string;
  readonly status: ApprovalStatus;
  readonly tool: string;
  readonly argumentsHash: string;
  readonly decision: {
    readonly option: string;
    readonly by: {
      readonly platform: string;
      readonly id: string;
      readonly displayName?: string | null;
    } | null;
    readonly via: string;
    readonly reason: string | null;
  } | null;
  readonly redeemedAt: string | null;
}
