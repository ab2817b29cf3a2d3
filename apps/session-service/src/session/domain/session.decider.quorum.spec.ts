import type { Person } from '@tollgate/protocol';
import { defaultToolPolicy, type ToolPolicy } from '../../tools/tool-policy';
import { auditEntriesOf } from '../../audit/audit-entry.mapper';
import { promptTimerKey } from './prompt-timer';
import { decidePromptTimer } from './prompt-timer.decider';
import {
  defaultDeps,
  eventTypes,
  eventsOf,
  executedCalls,
  outputKinds,
  outputsOf,
  REQUESTER,
  SessionGiven,
  sessionId,
} from './testing/session-given';

const ALICE: Person = { id: 'U_ALICE', displayName: 'Alice' };
const BOB: Person = { id: 'U_BOB', displayName: 'Bob' };
const CAROL: Person = { id: 'U_CAROL', displayName: 'Carol' };

/** write_note needs 2 of Alice, Bob, Carol and the requester, who is kept separate. */
function quorumPolicy(deadlineMs?: number): ToolPolicy {
  const base = defaultToolPolicy();
  return {
    apiEntryFor: () => undefined,
    entryFor: (name) => {
      const entry = base.entryFor(name);
      if (name !== 'write_note' || !entry) return entry;
      return {
        ...entry,
        ...(deadlineMs === undefined
          ? {}
          : { timers: { deadlineMs, onDeadline: 'expire' as const, remindMs: [] } }),
        options: entry.options.filter((o) => o.key === 'approve_once' || o.key === 'deny'),
        quorum: { required: 2, approvers: [REQUESTER, ALICE, BOB, CAROL], separateApprover: true },
      };
    },
  };
}

/** Given write_note (call_2_1) parked behind a 2-of-3 prompt. */
async function givenQuorumParked(): Promise<SessionGiven> {
  const session = new SessionGiven({ ...defaultDeps(), policy: quorumPolicy() });
  await session.message('!write_note {"text":"x"}');
  return session;
}

describe('G1 decideResponse on a prompt with a quorum', () => {
  it('G1 the prompt carries the rule and an empty tally', async () => {
    const session = await givenQuorumParked();
    const [request] = outputsOf(session.published, 'ToolInteractionRequest');
    expect(request?.approvers).toEqual([REQUESTER, ALICE, BOB, CAROL]);
    expect(request?.quorum).toEqual({
      required: 2,
      approvals: [],
      waitingFor: [ALICE, BOB, CAROL],
      separateFrom: REQUESTER,
    });
    expect(request?.options.map((o) => o.key)).toEqual(['approve_once', 'deny']);
  });

  it('G1 quorum 2 of 3: one approval is journaled and tallied, nothing runs', async () => {
    const session = await givenQuorumParked();
    const decision = await session.respond('call_2_1', 'approve_once', { sender: ALICE });
    expect(eventTypes(decision)).toEqual(['ToolApprovalCounted']);
    expect(outputKinds(decision.outputs)).toEqual(['ToolInteractionUpdate{Tallied}']);
    const [tally] = outputsOf(decision.outputs, 'ToolInteractionUpdate');
    expect(tally?.request?.quorum).toMatchObject({
      approvals: [{ by: ALICE, at: decision.events[0]?.occurredAt }],
      waitingFor: [BOB, CAROL],
    });
    expect(executedCalls(session.journal)).toEqual([]);
  });

  it('G1 quorum 2 of 3: the second approval resolves naming both, and the call runs once', async () => {
    const session = await givenQuorumParked();
    const first = await session.respond('call_2_1', 'approve_once', { sender: ALICE });
    const second = await session.respond('call_2_1', 'approve_once', { sender: BOB });
    expect(eventTypes(second).slice(0, 3)).toEqual([
      'ToolApprovalCounted',
      'ToolApprovalResolved',
      'ToolExecutionStarted',
    ]);
    const [resolved] = outputsOf(second.outputs, 'ToolInteractionResolved');
    expect(resolved).toMatchObject({
      resolvedBy: BOB,
      approvals: [
        { by: ALICE, at: first.events[0]?.occurredAt },
        { by: BOB, at: second.events[0]?.occurredAt },
      ],
    });
    expect(session.notes).toEqual(['x']);
    // A third approver, late, changes nothing.
    const late = await session.respond('call_2_1', 'approve_once', { sender: CAROL });
    expect(outputKinds(late.unjournaled.length ? late.unjournaled : late.outputs)).toEqual([
      'ToolInteractionRejected{prompt_expired}',
    ]);
    expect(session.notes).toEqual(['x']);
  });

  it('G1 a deny after one approval vetoes: denied, nothing runs, the veto names what it overruled', async () => {
    const session = await givenQuorumParked();
    await session.respond('call_2_1', 'approve_once', { sender: ALICE });
    const veto = await session.respond('call_2_1', 'deny', { sender: CAROL });
    const [resolved] = eventsOf(veto, 'ToolApprovalResolved');
    expect(resolved).toMatchObject({ approved: false, resolvedBy: CAROL });
    expect(resolved?.approvals?.map((a) => a.by)).toEqual([ALICE]);
    expect(session.notes).toEqual([]);
    const audit = veto.events.flatMap((e) => auditEntriesOf(sessionId, e));
    expect(audit.map((a) => a.kind)).toContain('veto');
  });

  it('G1 the requester cannot count under separateApprover, and a second click changes nothing', async () => {
    const session = await givenQuorumParked();
    const own = await session.respond('call_2_1', 'approve_once', { sender: REQUESTER });
    expect(outputKinds(own.outputs)).toEqual(['ToolInteractionRejected{own_call}']);
    await session.respond('call_2_1', 'approve_once', { sender: ALICE });
    const again = await session.respond('call_2_1', 'approve_once', { sender: ALICE });
    expect(outputKinds(again.outputs)).toEqual(['ToolInteractionRejected{already_answered}']);
    expect(eventsOf(again, 'ToolApprovalRefused')[0]?.reason).toBe('already_answered');
    expect(session.state.requested['call_2_1']?.request.quorum?.approvals).toHaveLength(1);
    expect(executedCalls(session.journal)).toEqual([]);
  });

  it('G1 a restart with one approval in refreshes "still valid" with the tally intact', async () => {
    const session = await givenQuorumParked();
    await session.respond('call_2_1', 'approve_once', { sender: ALICE });
    const recovered = await session.recover();
    const [refresh] = outputsOf(recovered.outputs, 'ToolInteractionUpdate');
    expect(refresh?.status).toBe('RefreshedAfterRestart');
    expect(refresh?.request?.quorum?.approvals.map((a) => a.by)).toEqual([ALICE]);
    await session.respond('call_2_1', 'approve_once', { sender: BOB });
    expect(session.notes).toEqual(['x']);
  });

  it('G1 a new message supersedes a half-full tally: nothing runs', async () => {
    const session = await givenQuorumParked();
    await session.respond('call_2_1', 'approve_once', { sender: ALICE });
    const next = await session.message('hello');
    expect(outputKinds(next.outputs)).toContain('ToolInteractionUpdate{Abandoned}');
    expect(session.notes).toEqual([]);
  });

  it('G1 every step reaches the audit trail with who', async () => {
    const session = await givenQuorumParked();
    const steps = [
      await session.respond('call_2_1', 'approve_once', { sender: ALICE }),
      await session.respond('call_2_1', 'approve_once', { sender: BOB }),
    ];
    const audit = steps.flatMap((d) => d.events.flatMap((e) => auditEntriesOf(sessionId, e)));
    expect(audit.slice(0, 3).map((a) => [a.kind, a.who?.id])).toEqual([
      ['quorum_step', ALICE.id],
      ['quorum_step', BOB.id],
      ['answer', BOB.id],
    ]);
    expect(audit[2]?.detail).toMatchObject({ approvals: [ALICE.id, BOB.id] });
  });

  it('G1 a deadline ends a half-full tally: expired, nothing runs, a late approval is refused', async () => {
    const session = new SessionGiven({ ...defaultDeps(), policy: quorumPolicy(3_600_000) });
    await session.message('!write_note {"text":"x"}');
    await session.respond('call_2_1', 'approve_once', { sender: ALICE });
    const timer = { kind: 'deadline', callId: 'call_2_1', onDeadline: 'expire' } as const;
    const ended = await session.decide((recorder) =>
      decidePromptTimer(recorder, timer, promptTimerKey(sessionId, timer)),
    );
    expect(outputKinds(ended.outputs)).toContain('ToolInteractionUpdate{Expired}');
    const late = await session.respond('call_2_1', 'approve_once', { sender: BOB });
    expect(outputKinds(late.outputs)).toContain('ToolInteractionRejected{prompt_expired}');
    expect(executedCalls(session.journal)).toEqual([]);
  });
});
