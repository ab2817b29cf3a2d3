import { shownCommandId, type ToolInteractionShown } from '@tollgate/protocol';
import { conversation } from '../../../../../libs/protocol/src/testing/message-fixtures';
import { decidePromptShown } from './prompt-shown.decider';
import { eventTypes, outputKinds, SessionGiven, sessionId } from './testing/session-given';

const messageRef = { channelId: 'C0001', messageId: '1700000002.000300' };
const shown = (callId: string): ToolInteractionShown => ({
  type: 'ToolInteractionShown',
  v: 1,
  id: shownCommandId('slack', messageRef),
  sessionId,
  conversation,
  occurredAt: '2024-05-01T12:00:00.000Z',
  callId,
  messageRef,
  shown: 'posted',
});

describe('G4 a prompt reported shown', () => {
  it('G4 a call the session asked about is journaled as PromptShown with its platform ids; the turn and outputs are untouched', async () => {
    const given = new SessionGiven();
    await given.message('!write_note {"text":"x"}');
    const decision = await given.decide((recorder) =>
      decidePromptShown(recorder, shown('call_2_1')),
    );
    expect(eventTypes(decision)).toEqual(['PromptShown']);
    expect(decision.events[0]?.event).toEqual({
      type: 'PromptShown',
      commandId: 'shown:slack:C0001:1700000002.000300',
      callId: 'call_2_1',
      platform: 'slack',
      messageRef,
      shown: 'posted',
    });
    expect(outputKinds(decision.outputs)).toEqual([]);
    expect(decision.state.turn.phase).toBe('WaitingForApprovals');
    // Still answerable as before.
    const answered = await given.respond('call_2_1', 'approve_once');
    expect(eventTypes(answered)).toContain('ToolApprovalResolved');
  });

  it('G4 a report that arrives after the answer is still journaled; one for a call never asked about is not', async () => {
    const given = new SessionGiven();
    await given.message('!write_note {"text":"x"}');
    await given.respond('call_2_1', 'approve_once');
    const late = await given.decide((recorder) => decidePromptShown(recorder, shown('call_2_1')));
    expect(eventTypes(late)).toEqual(['PromptShown']);
    const stray = await given.decide((recorder) => decidePromptShown(recorder, shown('call_9_9')));
    expect(eventTypes(stray)).toEqual([]);
  });
});
