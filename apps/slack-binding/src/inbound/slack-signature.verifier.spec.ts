import { createHmac } from 'node:crypto';
import { verifySlackSignature } from './slack-signature.verifier';

const secret = 'shh';
const body = Buffer.from('payload=%7B%7D');
const now = 1_800_000_000;
const sign = (ts: number, key = secret) =>
  `v0=${createHmac('sha256', key).update(`v0:${ts}:${body.toString()}`).digest('hex')}`;

describe('Slack request signature', () => {
  it('accepts a fresh, correct signature', () => {
    expect(verifySlackSignature(secret, body, String(now), sign(now), now)).toEqual({ ok: true });
  });

  it.each([
    ['forged', String(now), sign(now, 'other'), 'bad_signature'],
    ['five minutes old and one second', String(now - 301), sign(now - 301), 'stale_timestamp'],
    ['from the future', String(now + 301), sign(now + 301), 'stale_timestamp'],
    ['unsigned', String(now), undefined, 'missing_signature'],
    ['untimed', undefined, sign(now), 'missing_timestamp'],
  ])('refuses a request that is %s', (_case, timestamp, signature, reason) => {
    expect(verifySlackSignature(secret, body, timestamp, signature, now)).toEqual({
      ok: false,
      reason,
    });
  });

  it('refuses a body changed after signing', () => {
    expect(
      verifySlackSignature(
        secret,
        Buffer.from('payload=%7B%22x%22%7D'),
        String(now),
        sign(now),
        now,
      ),
    ).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });
});
