import type { Person } from '@tollgate/protocol';
import {
  decideTally,
  evolveTally,
  quorumOf,
  type TallyAnswer,
  type TallyEvent,
  type TallyRule,
  type TallyState,
  tallyOf,
} from './approval-tally.decider';

const ALICE: Person = { id: 'U_ALICE', displayName: 'Alice' };
const BOB: Person = { id: 'U_BOB', displayName: 'Bob' };
const CAROL: Person = { id: 'U_CAROL', displayName: 'Carol' };
const DAVE: Person = { id: 'U_DAVE', displayName: 'Dave' };
const REQUESTER: Person = { id: 'U_REQ', displayName: 'Rita' };

const AT = '2026-12-01T17:00:00.000Z';
const LATER = '2026-12-01T17:05:00.000Z';

const TWO_OF_THREE: TallyRule = {
  required: 2,
  approvers: [ALICE, BOB, CAROL],
  requester: REQUESTER,
};

/** Given the answers already journaled, when one more comes, then these events. */
function given(rule: TallyRule, ...answers: TallyAnswer[]) {
  const state = answers.reduce(
    (s: TallyState, answer) => decideTally(s, answer).reduce(evolveTally, s),
    { rule, approvals: [] },
  );
  return {
    state,
    when: (answer: TallyAnswer): TallyEvent[] => decideTally(state, answer),
  };
}

const approve = (by: Person, at = AT): TallyAnswer => ({ by, approve: true, at });
const deny = (by: Person, at = AT): TallyAnswer => ({ by, approve: false, at });

describe('G1 the approval tally (pure)', () => {
  it('G1 quorum 2 of 3: one approval is counted and decides nothing yet', () => {
    expect(given(TWO_OF_THREE).when(approve(ALICE))).toEqual([
      { type: 'ApprovalCounted', approval: { by: ALICE, at: AT } },
    ]);
  });

  it('G1 quorum 2 of 3: the second distinct approval reaches the quorum, naming both in order', () => {
    expect(given(TWO_OF_THREE, approve(ALICE)).when(approve(BOB, LATER))).toEqual([
      { type: 'ApprovalCounted', approval: { by: BOB, at: LATER } },
      {
        type: 'QuorumReached',
        approvals: [
          { by: ALICE, at: AT },
          { by: BOB, at: LATER },
        ],
      },
    ]);
  });

  it('G1 a deny after one approval vetoes, naming the approvals it overruled', () => {
    expect(given(TWO_OF_THREE, approve(ALICE)).when(deny(CAROL, LATER))).toEqual([
      { type: 'Vetoed', by: CAROL, at: LATER, approvals: [{ by: ALICE, at: AT }] },
    ]);
  });

  it('G1 a second click by the same approver changes nothing, approve or deny', () => {
    const afterAlice = given(TWO_OF_THREE, approve(ALICE));
    const refused = [{ type: 'AnswerRefused', reason: 'already_answered' }];
    expect(afterAlice.when(approve(ALICE, LATER))).toEqual(refused);
    expect(afterAlice.when(deny(ALICE, LATER))).toEqual(refused);
  });

  it('G1 someone not among the named approvers can neither approve nor veto', () => {
    const refused = [{ type: 'AnswerRefused', reason: 'wrong_requester' }];
    expect(given(TWO_OF_THREE).when(approve(DAVE))).toEqual(refused);
    expect(given(TWO_OF_THREE).when(deny(DAVE))).toEqual(refused);
  });

  it('G1 separateApprover: the requester cannot count, but may still withdraw their call', () => {
    const rule: TallyRule = {
      required: 2,
      approvers: [REQUESTER, ALICE, BOB],
      separateFrom: REQUESTER,
      requester: REQUESTER,
    };
    expect(given(rule).when(approve(REQUESTER))).toEqual([
      { type: 'AnswerRefused', reason: 'own_call' },
    ]);
    expect(given(rule, approve(ALICE)).when(deny(REQUESTER))).toEqual([
      { type: 'Vetoed', by: REQUESTER, at: AT, approvals: [{ by: ALICE, at: AT }] },
    ]);
  });

  it('G1 without named approvers any member counts, the requester too unless kept separate', () => {
    const open: TallyRule = { required: 2, requester: REQUESTER };
    expect(given(open, approve(REQUESTER)).when(approve(DAVE))[1]?.type).toBe('QuorumReached');
    const separate: TallyRule = { ...open, separateFrom: REQUESTER };
    expect(given(separate).when(approve(REQUESTER))).toEqual([
      { type: 'AnswerRefused', reason: 'own_call' },
    ]);
  });

  it('G1 separateApprover with quorum 1: one approval by someone else decides', () => {
    const rule: TallyRule = { required: 1, separateFrom: REQUESTER, requester: REQUESTER };
    expect(
      given(rule)
        .when(approve(ALICE))
        .map((e) => e.type),
    ).toEqual(['ApprovalCounted', 'QuorumReached']);
  });

  it('G1 a refused answer leaves the tally as it was', () => {
    const { state } = given(TWO_OF_THREE, approve(ALICE), approve(ALICE), approve(DAVE));
    expect(state.approvals).toEqual([{ by: ALICE, at: AT }]);
  });

  it('G1 the wire tally names who approved and who is still waited for, never the requester', () => {
    const rule: TallyRule = { ...TWO_OF_THREE, approvers: [REQUESTER, ALICE, BOB, CAROL] };
    const { state } = given({ ...rule, separateFrom: REQUESTER }, approve(ALICE));
    expect(quorumOf(state)).toEqual({
      required: 2,
      approvals: [{ by: ALICE, at: AT }],
      waitingFor: [BOB, CAROL],
      separateFrom: REQUESTER,
    });
    expect(quorumOf(given({ required: 2 }).state)).toEqual({ required: 2, approvals: [] });
  });

  it('G1 the tally read back from a prompt decides as the one it was written from', () => {
    const { state } = given(TWO_OF_THREE, approve(ALICE));
    const back = tallyOf(quorumOf(state), TWO_OF_THREE.approvers, REQUESTER);
    expect(decideTally(back, approve(BOB))).toEqual(decideTally(state, approve(BOB)));
    expect(decideTally(back, approve(ALICE))).toEqual(decideTally(state, approve(ALICE)));
  });
});

describe('G1 tally with a platform group among the approvers', () => {
  const OPS: TallyRule = {
    required: 2,
    approvers: [ALICE],
    approverGroups: ['S0OPS'],
    requester: REQUESTER,
  };
  const asMember = (by: Person, at = AT): TallyAnswer => ({
    by,
    approve: true,
    at,
    memberOf: ['S0OPS'],
  });

  it('G1 counts an approval from a member of a named group, as the binding found them', () => {
    expect(given(OPS).when(asMember(BOB))).toEqual([
      { type: 'ApprovalCounted', approval: { by: BOB, at: AT } },
    ]);
  });

  it('G1 refuses an approval from someone neither named nor in a named group (wrong_requester)', () => {
    expect(given(OPS).when(approve(CAROL))).toEqual([
      { type: 'AnswerRefused', reason: 'wrong_requester' },
    ]);
    // A group the rule does not name vouches for nothing.
    expect(given(OPS).when({ ...approve(CAROL), memberOf: ['S0OTHER'] })).toEqual([
      { type: 'AnswerRefused', reason: 'wrong_requester' },
    ]);
  });

  it('G1 a named person and a group member make the quorum together; a non-member cannot veto', () => {
    expect(given(OPS, approve(ALICE)).when(asMember(BOB, LATER))).toEqual([
      { type: 'ApprovalCounted', approval: { by: BOB, at: LATER } },
      {
        type: 'QuorumReached',
        approvals: [
          { by: ALICE, at: AT },
          { by: BOB, at: LATER },
        ],
      },
    ]);
    expect(given(OPS).when({ by: CAROL, approve: false, at: AT })).toEqual([
      { type: 'AnswerRefused', reason: 'wrong_requester' },
    ]);
  });

  it('G1 with groups the tally names no one it waits for: only how many more', () => {
    expect(quorumOf({ rule: OPS, approvals: [] })).toEqual({ required: 2, approvals: [] });
    expect(
      tallyOf({ required: 1, approvals: [] }, undefined, REQUESTER, [{ id: 'S0OPS' }]).rule,
    ).toEqual({ required: 1, approverGroups: ['S0OPS'], requester: REQUESTER });
  });
});
