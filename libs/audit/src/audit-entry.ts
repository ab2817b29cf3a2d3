/** What the audit trail records (docs/audit.md maps each kind to the question it answers). */
export const AUDIT_KINDS = [
  'message',
  'call_proposed',
  'request',
  /** G4: the prompt was posted (or reposted) on the platform, at its own message ids. */
  'prompt_shown',
  'reminder',
  'answer',
  /** G2: an approver edited the arguments before approving; `argumentsHash` is what runs. */
  'edit',
  'refusal',
  'grant_given',
  'grant_used',
  'grant_revoked',
  'grant_expired',
  'run',
  'result',
  'abandon',
  'deadline',
  'cancel',
  'decision',
  'quarantine',
  /** G1: one approval of a prompt with a quorum counted (`who`), the quorum not yet reached. */
  'quorum_step',
  /** G1: a deny that ended a prompt with a quorum, with the approvals it overruled. */
  'veto',
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export const AUDIT_VIAS = ['click', 'text', 'grant', 'deadline'] as const;
export type AuditVia = (typeof AUDIT_VIAS)[number];

/** A person as the platform names them (`platform` where the source knew it). */
export interface AuditWho {
  readonly id: string;
  readonly displayName?: string;
  readonly platform?: string;
}

/** One entry before it joins its day's chain. */
export interface AuditDraft {
  /** ISO instant (UTC, milliseconds): the journal event's `occurredAt`. */
  readonly at: string;
  readonly kind: AuditKind;
  readonly sessionId: string;
  readonly callId: string | null;
  readonly who: AuditWho | null;
  readonly via: AuditVia | null;
  readonly argumentsHash: string | null;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** What the hash covers: the draft, its place in its day's chain and the hash before it. */
export interface ChainedFields extends AuditDraft {
  /** `YYYY-MM-DD` (UTC) of `at`. */
  readonly day: string;
  /** 1-based position in the day's chain. */
  readonly n: number;
  readonly prevHash: string;
}

export interface AuditEntry extends ChainedFields {
  /** The row's `bigserial`; not hashed (it is assigned by the insert). */
  readonly seq: string;
  readonly hash: string;
}
