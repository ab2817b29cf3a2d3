import { parseCommand, parseOutput } from './message.parser';
import { deriveSubAgentSessionId, isSessionId, platformOfSessionId } from './session-id';
import { aRequest, aResponse, aTextOutput, sessionId } from './testing/message-fixtures';

const child = deriveSubAgentSessionId(sessionId, 'call_2_1');
const agent = { name: 'helper', parentCallId: 'call_2_1' };

describe('S19 — sub-agent messages', () => {
  it('derive a session id of the parent platform, stable and distinct per parent call', () => {
    expect(isSessionId(child)).toBe(true);
    expect(platformOfSessionId(child)).toBe(platformOfSessionId(sessionId));
    expect(deriveSubAgentSessionId(sessionId, 'call_2_1')).toBe(child);
    expect(deriveSubAgentSessionId(sessionId, 'call_2_2')).not.toBe(child);
    expect(child).not.toBe(sessionId);
  });

  it('accept a Request, a TextOutput and a response that name the sub-agent of their session', () => {
    const request = aRequest({ sessionId: child, id: `${child}:3:0`, agent });
    const text = aTextOutput({ sessionId: child, id: `${child}:4:0`, agent, role: 'notice' });
    const response = aResponse({ sessionId: child, agent });
    expect(parseOutput(request)).toEqual({ ok: true, value: request });
    expect(parseOutput(text)).toEqual({ ok: true, value: text });
    expect(parseCommand(response)).toEqual({ ok: true, value: response });
  });

  it('refuse a sub-agent session without its agent, and an agent naming another call', () => {
    expect(parseOutput(aRequest({ sessionId: child, id: `${child}:3:0` }))).toMatchObject({
      ok: false,
      reason: 'session_mismatch',
    });
    const other = parseCommand(
      aResponse({ sessionId: child, agent: { ...agent, parentCallId: 'call_9_1' } }),
    );
    expect(other).toMatchObject({ ok: false, reason: 'session_mismatch' });
    if (!other.ok) expect(other.detail).toMatch(/sub-agent session of call "call_9_1"/);
  });

  it('refuse an agent on the conversation session itself, and an empty or oversized name', () => {
    expect(parseCommand(aResponse({ agent }))).toMatchObject({ reason: 'session_mismatch' });
    expect(
      parseOutput(
        aRequest({ sessionId: child, id: `${child}:3:0`, agent: { ...agent, name: '' } }),
      ),
    ).toMatchObject({ reason: 'invalid_payload' });
    expect(
      parseOutput(
        aRequest({
          sessionId: child,
          id: `${child}:3:0`,
          agent: { ...agent, name: 'n'.repeat(65) },
        }),
      ),
    ).toMatchObject({ reason: 'invalid_payload' });
  });
});
