import { defaultToolPolicy } from '../../tools/tool-policy';
import { defaultDeps, eventTypes, outputKinds, SessionGiven } from './testing/session-given';

describe('redrive that cannot go ahead', () => {
  it('S5 a tool that no longer exists at redrive expires the prompt with a notice; nothing runs', async () => {
    const before = new SessionGiven();
    await before.message('!write_note {"text":"x"}');

    // The next process runs with a policy that no longer has write_note.
    const policy = defaultToolPolicy();
    const after = new SessionGiven({
      ...defaultDeps(),
      policy: {
        apiEntryFor: () => undefined,
        entryFor: (name) => (name === 'write_note' ? undefined : policy.entryFor(name)),
      },
    });
    after.journal.push(...before.journal);
    const decision = await after.respond('call_2_1', 'approve_once');

    expect(eventTypes(decision)).toEqual(['ToolApprovalResolved', 'ToolBatchAbandoned']);
    expect(decision.events[1].event).toMatchObject({
      type: 'ToolBatchAbandoned',
      reason: 'expired',
      results: [
        { callId: 'call_2_1', result: expect.stringContaining('write_note no longer exists') },
      ],
    });
    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionResolved{approve_once}',
      'ToolInteractionUpdate{Expired}',
      'TextOutput{notice}',
    ]);
    expect(decision.state.turn.phase).toBe('NoActive');
  });

  it('S9 a crash while the tool ran: recovery abandons it as interrupted and never re-runs it', async () => {
    const given = new SessionGiven();
    await given.message('!write_note {"text":"x"}');
    await given.respond('call_2_1', 'approve_once');
    // Keep the journal only up to ToolExecutionStarted, as a crash mid-run would leave it.
    const started = given.journal.findIndex((e) => e.event.type === 'ToolExecutionStarted');
    given.journal.splice(started + 1);

    const decision = await given.recover();
    expect(eventTypes(decision)).toEqual(['ToolBatchAbandoned']);
    expect(decision.events[0].event).toMatchObject({ reason: 'interrupted' });
    expect(outputKinds(decision.outputs)).toEqual(['TextOutput{notice}']);
    expect(decision.state.turn.phase).toBe('NoActive');
  });

  it('S9 a crash after the answer but before the run: recovery runs it once and completes', async () => {
    const given = new SessionGiven();
    await given.message('!write_note {"text":"x"}');
    await given.respond('call_2_1', 'approve_once');
    const resolved = given.journal.findIndex((e) => e.event.type === 'ToolApprovalResolved');
    given.journal.splice(resolved + 1);

    const decision = await given.recover();
    expect(eventTypes(decision)).toEqual([
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
  });
});
