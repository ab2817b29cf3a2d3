import { LIMITS } from '@tollgate/protocol';
import { isPromptRef, promptRefOf } from './prompt-ref';

describe('promptRefOf', () => {
  const sessionId = 'slack-0123456789abcdef0123456789abcdef';

  it('is 24 hex characters, so it fits every platform button id (Mattermost: letters and digits)', () => {
    const ref = promptRefOf({ sessionId, callId: 'x'.repeat(LIMITS.callId) });
    expect(ref).toMatch(/^[0-9a-f]{24}$/);
    expect(isPromptRef(ref)).toBe(true);
  });

  it('is deterministic per (sessionId, callId) and differs when either differs', () => {
    const a = promptRefOf({ sessionId, callId: 'call_3_1' });
    expect(promptRefOf({ sessionId, callId: 'call_3_1' })).toBe(a);
    expect(promptRefOf({ sessionId, callId: 'call_3_2' })).not.toBe(a);
    expect(
      promptRefOf({ sessionId: 'slack-ffffffffffffffffffffffffffffffff', callId: 'call_3_1' }),
    ).not.toBe(a);
  });

  it('refuses anything a button could not have carried', () => {
    expect(isPromptRef('')).toBe(false);
    expect(isPromptRef('abc-def')).toBe(false);
    expect(isPromptRef('a'.repeat(33))).toBe(false);
    expect(isPromptRef('Ab09')).toBe(true);
  });
});
