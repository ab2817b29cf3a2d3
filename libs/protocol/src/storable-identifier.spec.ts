import { parseCommand } from './message.parser';
import { aResponse, aUserMessage } from './testing/message-fixtures';

describe('identifiers PostgreSQL cannot store are refused at the boundary', () => {
  it.each([
    ['a command id', () => aUserMessage({ id: 'Ev\ud800' })],
    ['a call id', () => aResponse({ callId: 'call\u0000' })],
    ['a sender id', () => aUserMessage({ sender: { id: 'U\u0000' } })],
    ['an option key', () => aResponse({ optionKey: 'approve\udc00' })],
  ])('X8 refuses %s holding U+0000 or a lone surrogate', (_what, build) => {
    const result = parseCommand(JSON.stringify(build()));
    expect(result).toMatchObject({ ok: false, reason: 'invalid_payload' });
    expect(result.ok ? '' : result.detail).toContain('U+0000 or an unpaired surrogate');
  });

  it('X8 accepts the same characters in free text, which the journals escape instead', () => {
    const message = aUserMessage({
      text: 'hi\u0000 \ud800',
      sender: { id: 'U1', displayName: 'N\u0000L' },
    });
    expect(parseCommand(JSON.stringify(message))).toMatchObject({ ok: true });
  });
});
