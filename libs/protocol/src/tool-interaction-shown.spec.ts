import type { ToolInteractionShown } from './commands.schema';
import { parseCommand } from './message.parser';
import { commandSubjectKind } from './message-subject';
import { shownCommandId } from './output-id';
import { conversation, sessionId } from './testing/message-fixtures';

const messageRef = { channelId: 'C0001', messageId: '1700000002.000300' };
const shown = (overrides: Partial<ToolInteractionShown> = {}): ToolInteractionShown => ({
  type: 'ToolInteractionShown',
  v: 1,
  id: shownCommandId('slack', messageRef),
  sessionId,
  conversation,
  occurredAt: '2024-05-01T12:00:00.000Z',
  callId: 'call_3_1',
  messageRef,
  shown: 'posted',
  ...overrides,
});

describe('G4 ToolInteractionShown at the boundary', () => {
  it('G4 a posted and a reposted prompt are accepted, on the `shown` subject kind, with an id of the message', () => {
    for (const message of [shown(), shown({ shown: 'reposted' })]) {
      expect(parseCommand(message)).toEqual({ ok: true, value: message });
      expect(commandSubjectKind(message)).toBe('shown');
    }
    expect(shown().id).toBe('shown:slack:C0001:1700000002.000300');
  });

  it.each([
    ['a message id of 81 characters', { messageRef: { ...messageRef, messageId: 'm'.repeat(81) } }],
    ['an empty channel id', { messageRef: { ...messageRef, channelId: '' } }],
    ['a control character', { messageRef: { ...messageRef, messageId: '17\n00' } }],
    ['an unknown way of showing', { shown: 'edited' as never }],
    ['an extra field in the reference', { messageRef: { ...messageRef, ts: '1' } as never }],
    ['no call id', { callId: '' }],
  ])('G4 refuses %s as invalid_payload (dead-lettered by the consumer)', (_case, overrides) => {
    expect(parseCommand(shown(overrides))).toMatchObject({ ok: false, reason: 'invalid_payload' });
  });

  it('G4 the longest ids still make a command id within its limit', () => {
    const longest = { channelId: 'c'.repeat(80), messageId: 'm'.repeat(80) };
    const message = shown({ messageRef: longest, id: shownCommandId('mattermost', longest) });
    expect(parseCommand({ ...message, conversation }).ok).toBe(true);
  });
});
