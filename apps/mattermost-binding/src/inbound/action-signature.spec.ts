import { createHmac } from 'node:crypto';
import { signAction, verifyActionContext } from './action-signature';

const SECRET = 'action-signature-spec-secret';
const NONCE = '0123456789abcdef0123456789abcdef';
const fields = {
  sessionId: 'mattermost-s1',
  callId: 'call_1',
  optionKey: 'approve_once',
  nonce: NONCE,
};

describe('the Mattermost action signature', () => {
  it('is HMAC-SHA256 hex over sessionId, callId, optionKey and nonce joined by newlines', () => {
    const expected = createHmac('sha256', SECRET)
      .update(`mattermost-s1\ncall_1\napprove_once\n${NONCE}`)
      .digest('hex');
    expect(signAction(SECRET, fields)).toBe(expected);
  });

  it('accepts a context signed with the secret', () => {
    const context = { ...fields, sig: signAction(SECRET, fields) };
    expect(verifyActionContext(SECRET, context)).toEqual({ ok: true, context });
  });

  it.each([
    ['another secret', { ...fields, sig: signAction('another-secret-0123456', fields) }],
    ['a swapped option', { ...fields, optionKey: 'deny', sig: signAction(SECRET, fields) }],
    ['a swapped call', { ...fields, callId: 'call_2', sig: signAction(SECRET, fields) }],
    ['a swapped nonce', { ...fields, nonce: 'f'.repeat(32), sig: signAction(SECRET, fields) }],
    ['no nonce', { ...fields, nonce: undefined, sig: signAction(SECRET, fields) }],
    ['a malformed nonce', { ...fields, nonce: 'NOT-HEX', sig: signAction(SECRET, fields) }],
    ['no sig', { ...fields }],
    ['a malformed sig', { ...fields, sig: 'zz' }],
    ['a truncated sig', { ...fields, sig: signAction(SECRET, fields).slice(0, 62) }],
    ['no session', { callId: 'c', optionKey: 'o', nonce: NONCE, sig: 'a'.repeat(64) }],
    ['no context', undefined],
    ['a string context', 'sig'],
  ])('refuses %s', (_label, context) => {
    expect(verifyActionContext(SECRET, context)).toMatchObject({ ok: false });
  });

  it.each([
    ['a NUL in the call id', { ...fields, callId: 'call\u00001' }],
    ['a lone surrogate in the session id', { ...fields, sessionId: 'mattermost-s1\ud800' }],
    ['a NUL in the option key', { ...fields, optionKey: 'approve_once\u0000' }],
  ])('X19 refuses a correctly signed context with %s before any lookup', (_label, signed) => {
    const context = { ...signed, sig: signAction(SECRET, signed) };
    expect(verifyActionContext(SECRET, context)).toEqual({ ok: false, reason: 'invalid_context' });
  });
});
