import type {
  ApprovalCount,
  ApproverGroup,
  Person,
  Quorum,
  ToolInteractionRequest,
} from '@tollgate/protocol';

/**
 * G1: the two-person rule and quorum, pure. A prompt with a quorum is decided by the tally, not
 * by its first answer: each distinct approver's approval is counted until `required` are in;
 * any deny ends it at once (a veto). The session keeps the state in its journal; this says what
 * one answer does to it.
 */

export interface TallyRule {
  /** Distinct approvals needed. */
  readonly required: number;
  /** Who may approve; absent with `approverGroups`: any member of the conversation. */
  readonly approvers?: readonly Person[];
  /** Platform groups whose members may approve too (their members as the binding resolved them). */
  readonly approverGroups?: readonly string[];
  /** `separateApprover`: this person (who asked) may deny but not approve. */
  readonly separateFrom?: Person;
  /** Who may deny without being an approver: the person who asked may always withdraw. */
  readonly requester?: Person;
}

export interface TallyState {
  readonly rule: TallyRule;
  readonly approvals: readonly ApprovalCount[];
}

export interface TallyAnswer {
  readonly by: Person;
  readonly approve: boolean;
  readonly at: string;
  /** The rule's groups the binding found this person in when it posted the prompt. */
  readonly memberOf?: readonly string[];
}

/** Why an answer changes nothing; each is told privately to the person who gave it. */
export type TallyRefusal =
  /** Not among the approvers nor in their groups (and not the requester denying their own call). */
  | 'wrong_requester'
  /** The requester approving their own call under `separateApprover`. */
  | 'own_call'
  /** A second answer of someone already counted: neither a second approval nor a change of mind. */
  | 'already_answered';

export type TallyEvent =
  | { readonly type: 'AnswerRefused'; readonly reason: TallyRefusal }
  | { readonly type: 'ApprovalCounted'; readonly approval: ApprovalCount }
  | { readonly type: 'QuorumReached'; readonly approvals: readonly ApprovalCount[] }
  | {
      readonly type: 'Vetoed';
      readonly by: Person;
      readonly at: string;
      /** The approvals the veto overruled, maybe none. */
      readonly approvals: readonly ApprovalCount[];
    };

export function decideTally(state: TallyState, answer: TallyAnswer): TallyEvent[] {
  const { rule, approvals } = state;
  const id = answer.by.id;
  if (approvals.some((a) => a.by.id === id)) {
    return [{ type: 'AnswerRefused', reason: 'already_answered' }];
  }
  const named = mayApprove(rule, answer);
  if (!answer.approve) {
    // Who may approve may veto; the requester may always withdraw their own call.
    return named || rule.requester?.id === id
      ? [{ type: 'Vetoed', by: answer.by, at: answer.at, approvals }]
      : [{ type: 'AnswerRefused', reason: 'wrong_requester' }];
  }
  if (rule.separateFrom?.id === id) return [{ type: 'AnswerRefused', reason: 'own_call' }];
  if (!named) return [{ type: 'AnswerRefused', reason: 'wrong_requester' }];
  const approval: ApprovalCount = { by: answer.by, at: answer.at };
  const counted: TallyEvent = { type: 'ApprovalCounted', approval };
  return approvals.length + 1 >= rule.required
    ? [counted, { type: 'QuorumReached', approvals: [...approvals, approval] }]
    : [counted];
}

/** Named, or in one of the named groups; anyone when the rule names neither. */
function mayApprove(rule: TallyRule, answer: TallyAnswer): boolean {
  if (rule.approvers === undefined && rule.approverGroups === undefined) return true;
  if (rule.approvers?.some((p) => p.id === answer.by.id)) return true;
  const groups = rule.approverGroups ?? [];
  return (answer.memberOf ?? []).some((group) => groups.includes(group));
}

export function evolveTally(state: TallyState, event: TallyEvent): TallyState {
  return event.type === 'ApprovalCounted'
    ? { ...state, approvals: [...state.approvals, event.approval] }
    : state;
}

/** The tally as a prompt carries it (docs/protocol.md §9): what the binding renders. */
export function quorumOf(state: TallyState): Quorum {
  const { rule, approvals } = state;
  // With groups, who may still approve is not a list of names: the line counts what is missing.
  const waitingFor =
    rule.approverGroups === undefined
      ? rule.approvers?.filter(
          (p) => p.id !== rule.separateFrom?.id && !approvals.some((a) => a.by.id === p.id),
        )
      : undefined;
  return {
    required: rule.required,
    approvals: [...approvals],
    ...(waitingFor === undefined ? {} : { waitingFor }),
    ...(rule.separateFrom === undefined ? {} : { separateFrom: rule.separateFrom }),
  };
}

/** The rule and tally a prompt's `quorum` describes, with who else may answer it. */
export function tallyOf(
  quorum: Quorum,
  approvers: readonly Person[] | undefined,
  requester: Person,
  approverGroups?: readonly ApproverGroup[],
): TallyState {
  return {
    rule: {
      required: quorum.required,
      ...(approvers === undefined ? {} : { approvers }),
      ...(approverGroups === undefined ? {} : { approverGroups: approverGroups.map((g) => g.id) }),
      ...(quorum.separateFrom === undefined ? {} : { separateFrom: quorum.separateFrom }),
      requester,
    },
    approvals: quorum.approvals,
  };
}

/** The tally of a prompt with a quorum: its rule and approvals, read from the prompt itself. */
export function tallyOfRequest(
  request: ToolInteractionRequest & { readonly quorum: Quorum },
): TallyState {
  return tallyOf(request.quorum, request.approvers, request.requester, request.approverGroups);
}

/** The prompt with one more approval counted, as a refresh or a tally re-sends it. */
export function countedIn(
  request: ToolInteractionRequest,
  approval: ApprovalCount,
): ToolInteractionRequest {
  const { quorum } = request;
  if (quorum === undefined) return request;
  const next = evolveTally(tallyOfRequest({ ...request, quorum }), {
    type: 'ApprovalCounted',
    approval,
  });
  return { ...request, quorum: quorumOf(next) };
}
