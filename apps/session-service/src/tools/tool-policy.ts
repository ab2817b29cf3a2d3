import type { GrantOffer } from './grant-offer';
import {
  type ApproverGroup,
  type ArgumentConstraint,
  type Option,
  type OptionKey,
  type Person,
  standardOptions,
} from '@tollgate/protocol';

export type ApprovalMode = 'auto' | 'approval' | 'deny';

export type OnDeadline = 'deny' | 'expire';

/**
 * S22: when a prompt nobody answers is reminded of and ended, counted from its request. Absent
 * (the default), a prompt waits for ever: no timeout.
 */
export interface PromptTimerPolicy {
  /** After this long the prompt ends (`Update{Expired}`, "deadline passed"). */
  readonly deadlineMs?: number;
  /** Only with a deadline; the default is `expire`. */
  readonly onDeadline: OnDeadline;
  /** A thread reply mentioning the requester after each of these, ascending. */
  readonly remindMs: readonly number[];
}

/**
 * G1: the two-person rule and quorum. Absent, the requester's one answer decides (quorum 1,
 * which is every tool's default).
 */
export interface QuorumPolicy {
  /** Distinct approvals needed. */
  readonly required: number;
  /** Who may approve; absent (and no groups): any member of the conversation. */
  readonly approvers?: readonly Person[];
  /** Platform groups whose members may approve, resolved by the binding when it posts. */
  readonly approverGroups?: readonly ApproverGroup[];
  /** The person whose message asked may deny the call but not approve it. */
  readonly separateApprover: boolean;
}

export interface ToolPolicyEntry {
  readonly mode: ApprovalMode;
  /** The options a prompt for this tool offers, in canonical order. */
  readonly options: readonly Option[];
  readonly timers?: PromptTimerPolicy;
  readonly quorum?: QuorumPolicy;
  /** G3: what its "Always allow" gives; absent, the tool for ever (until revoked). */
  readonly always?: GrantOffer;
  /**
   * G2: the arguments an approver may edit before approving once, each only inside its
   * constraint. Absent: no "Edit & approve".
   */
  readonly editable?: readonly EditablePolicy[];
}

export interface EditablePolicy {
  readonly name: string;
  readonly constraint: ArgumentConstraint;
}

/**
 * What the policy adds to an approval API request for a tool an agent runs itself (`Bash`,
 * `Write`): only what such a request takes from the policy. Its quorum, approvers and deadline
 * come with each request (docs/protocol.md §8, §9).
 */
export interface ApiToolPolicyEntry {
  /** G2: the arguments an approver may narrow before approving once. */
  readonly editable?: readonly EditablePolicy[];
  /** S22: reminders, each before the request's own deadline when it has one; ascending. */
  readonly remindMs?: readonly number[];
}

export interface ToolPolicy {
  /** The session service's own tools (`tools:`), the registry's names. */
  entryFor(toolName: string): ToolPolicyEntry | undefined;
  /** An approval API request's tool (`apiTools:`), the name the agent sends. */
  apiEntryFor(toolName: string): ApiToolPolicyEntry | undefined;
}

const ALL_OPTIONS: readonly OptionKey[] = [
  'approve_once',
  'approve_session',
  'approve_always',
  'deny',
];

/**
 * docs/protocol.md §5's built-in default: `echo` auto, `write_note` approval, and `delegate`
 * approval (docs/protocol.md §6: starting a sub-agent is itself an action someone allows).
 */
export function defaultToolPolicy(): ToolPolicy {
  const entries: Record<string, ToolPolicyEntry> = {
    echo: { mode: 'auto', options: standardOptions(ALL_OPTIONS) },
    write_note: { mode: 'approval', options: standardOptions(ALL_OPTIONS) },
    delegate: { mode: 'approval', options: standardOptions(ALL_OPTIONS) },
  };
  return { entryFor: (toolName) => entries[toolName], apiEntryFor: () => undefined };
}
