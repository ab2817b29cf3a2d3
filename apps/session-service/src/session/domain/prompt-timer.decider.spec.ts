import type { ToolPolicy, ToolPolicyEntry } from '../../tools/tool-policy';
import { defaultToolPolicy } from '../../tools/tool-policy';
import { type PromptTimer, promptTimerKey, promptTimersAt } from './prompt-timer';
import { decidePromptTimer } from './prompt-timer.decider';
import { driveTurn } from '../drive-turn';
import {
  defaultDeps,
  eventTypes,
  outputKinds,
  outputsOf,
  REQUESTER,
  replyOf,
  SessionGiven,
  sessionId,
} from './testing/session-given';

const HOUR = 3_600_000;

/** write_note with the timers a policy file would give it. */
function policyWith(timers: ToolPolicyEntry['timers']): ToolPolicy {
  const base = defaultToolPolicy();
  return {
    apiEntryFor: () => undefined,
    entryFor: (name) => {
      const entry = base.entryFor(name);
      return name === 'write_note' && entry ? { ...entry, timers } : entry;
    },
  };
}

const REMIND_AND_EXPIRE = policyWith({
  deadlineMs: 24 * HOUR,
  onDeadline: 'expire',
  remindMs: [HOUR, 8 * HOUR],
});
const DEADLINE_DENY = policyWith({ deadlineMs: 24 * HOUR, onDeadline: 'deny', remindMs: [] });

function fire(given: SessionGiven, timer: PromptTimer) {
  const key = promptTimerKey(sessionId, timer);
  return given.decide((recorder) => {
    decidePromptTimer(recorder, timer, key);
    return driveTurn(recorder, given.deps);
  });
}

const reminder = (n: number): PromptTimer => ({
  kind: 'reminder',
  callId: 'call_2_1',
  reminder: n,
});
const deadline = (onDeadline: 'deny' | 'expire'): PromptTimer => ({
  kind: 'deadline',
  callId: 'call_2_1',
  onDeadline,
});

describe('S22 — deadline and reminders (decider)', () => {
  it('S22 the request journals its reminders and deadline as instants from when it was asked', async () => {
    const given = new SessionGiven({ ...defaultDeps(), policy: REMIND_AND_EXPIRE });
    const asked = await given.message('!write_note {"text":"x"}');
    const [requested] = asked.events.filter((e) => e.event.type === 'ToolApprovalRequested');
    const at = Date.parse(requested.occurredAt);
    expect(requested.event).toMatchObject({
      timers: {
        remindAt: [new Date(at + HOUR).toISOString(), new Date(at + 8 * HOUR).toISOString()],
        deadline: { at: new Date(at + 24 * HOUR).toISOString(), onDeadline: 'expire' },
      },
    });
  });

  it('S22 without a deadline or reminders nothing is scheduled: no timeout', async () => {
    const given = new SessionGiven();
    const asked = await given.message('!write_note {"text":"x"}');
    const requested = asked.events.find((e) => e.event.type === 'ToolApprovalRequested');
    expect(requested?.event).not.toHaveProperty('timers');
    expect(promptTimersAt(undefined, requested!.occurredAt)).toBeUndefined();
  });

  it('S22 given a pending prompt, when a reminder comes due, then a thread reply mentions the requester', async () => {
    const given = new SessionGiven({ ...defaultDeps(), policy: REMIND_AND_EXPIRE });
    await given.message('!write_note {"text":"x"}');

    const decision = await fire(given, reminder(1));

    expect(eventTypes(decision)).toEqual(['ToolApprovalReminded']);
    expect(decision.events[0].event).toEqual({
      type: 'ToolApprovalReminded',
      commandId: `timer:${sessionId}:call_2_1:reminder:1`,
      callId: 'call_2_1',
      reminder: 1,
    });
    const [text] = outputsOf(decision.outputs, 'TextOutput');
    expect(text).toMatchObject({
      role: 'notice',
      mention: REQUESTER,
      text: 'Reminder: the request to run write_note is still waiting for an answer.',
    });
    // The prompt stays open: still pending, still answerable.
    expect(decision.state.turn.phase).toBe('WaitingForApprovals');
    const approved = await given.respond('call_2_1', 'approve_once');
    expect(replyOf(approved)).toBe('write_note: 1');
  });

  it('S22 an automation prompt is reminded without mentioning anyone (any member may answer)', async () => {
    const given = new SessionGiven({ ...defaultDeps(), policy: REMIND_AND_EXPIRE });
    await given.message('!write_note {"text":"x"}', { principal: 'automation' });
    const decision = await fire(given, reminder(1));
    const [text] = outputsOf(decision.outputs, 'TextOutput');
    expect(text).not.toHaveProperty('mention');
  });

  it('S22 given onDeadline expire, when the deadline passes, then the prompt expires "deadline passed" and the batch goes on', async () => {
    const given = new SessionGiven({ ...defaultDeps(), policy: REMIND_AND_EXPIRE });
    await given.message('!write_note {"text":"x"}');

    const decision = await fire(given, deadline('expire'));

    expect(eventTypes(decision)).toEqual([
      'ToolApprovalResolved',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
    expect(decision.events[0].event).toMatchObject({
      optionKey: 'deadline_expired',
      approved: false,
      resolvedBy: { id: 'tollgate' },
      commandId: `timer:${sessionId}:call_2_1:deadline`,
    });
    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionUpdate{Expired}',
      'TextOutput{assistant}',
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionUpdate')[0]).toMatchObject({
      callId: 'call_2_1',
      reason: 'deadline passed',
    });
    expect(replyOf(decision)).toBe('write_note: expired (deadline passed)');
    expect(given.notes).toEqual([]);
  });

  it('S22 given onDeadline deny, when the deadline passes, then the call is recorded as denied by Tollgate', async () => {
    const given = new SessionGiven({ ...defaultDeps(), policy: DEADLINE_DENY });
    await given.message('!write_note {"text":"x"}');

    const decision = await fire(given, deadline('deny'));

    expect(decision.events[0].event).toMatchObject({
      type: 'ToolApprovalResolved',
      optionKey: 'deadline_denied',
      approved: false,
      label: 'denied (deadline passed)',
    });
    expect(decision.events[1].event).toMatchObject({
      type: 'ToolCallRecorded',
      outcome: 'denied',
    });
    expect(outputsOf(decision.outputs, 'ToolInteractionUpdate')[0]).toMatchObject({
      status: 'Expired',
      reason: 'deadline passed',
    });
    expect(replyOf(decision)).toBe('write_note: denied (deadline passed)');
  });

  it('S22 a deadline settles only its own call: the batch waits for the sibling still open', async () => {
    const given = new SessionGiven({ ...defaultDeps(), policy: REMIND_AND_EXPIRE });
    await given.message('!write_note {"text":"a"}\n!write_note {"text":"b"}');

    const first = await fire(given, deadline('expire'));
    expect(eventTypes(first)).toEqual(['ToolApprovalResolved']);
    const second = await given.respond('call_2_2', 'approve_once');
    expect(replyOf(second)).toBe('write_note: expired (deadline passed)\nwrite_note: 1');
  });

  it('S22 a click after the deadline is told the request expired; nothing runs', async () => {
    const given = new SessionGiven({ ...defaultDeps(), policy: REMIND_AND_EXPIRE });
    await given.message('!write_note {"text":"x"}');
    await fire(given, deadline('expire'));
    const late = await given.respond('call_2_1', 'approve_once');
    expect(outputKinds([...late.outputs, ...late.unjournaled])).toEqual([
      'ToolInteractionRejected{prompt_expired}',
    ]);
    expect(given.notes).toEqual([]);
  });

  it.each([
    ['answered', (g: SessionGiven) => g.respond('call_2_1', 'deny')],
    ['superseded', (g: SessionGiven) => g.message('something else')],
  ])('S22 a prompt %s first: its reminder and deadline change nothing', async (_, first) => {
    const given = new SessionGiven({ ...defaultDeps(), policy: REMIND_AND_EXPIRE });
    await given.message('!write_note {"text":"x"}');
    await first(given);
    const before = given.journal.length;

    expect(eventTypes(await fire(given, reminder(1)))).toEqual([]);
    expect((await fire(given, deadline('expire'))).outputs).toEqual([]);
    expect(given.journal).toHaveLength(before);
  });
});
