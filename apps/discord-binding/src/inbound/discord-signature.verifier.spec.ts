import { generateDiscordKeyPair, signDiscordRequest } from '@tollgate/platform-standins';
import { discordPublicKey, verifyDiscordSignature } from './discord-signature.verifier';

describe('verifyDiscordSignature', () => {
  const keys = generateDiscordKeyPair();
  const publicKey = discordPublicKey(keys.publicKeyHex);
  const body = '{"type":1}';
  const now = 1_800_000_000;

  function check(headers: Record<string, string>, raw = body, at = now) {
    return verifyDiscordSignature(
      publicKey,
      Buffer.from(raw),
      headers['X-Signature-Timestamp'],
      headers['X-Signature-Ed25519'],
      at,
    );
  }

  it('accepts Ed25519 over timestamp + raw body, within five minutes either way', () => {
    expect(check(signDiscordRequest(keys.privateKey, now, body))).toEqual({ ok: true });
    expect(check(signDiscordRequest(keys.privateKey, now - 299, body))).toEqual({ ok: true });
    expect(check(signDiscordRequest(keys.privateKey, now + 299, body))).toEqual({ ok: true });
  });

  it('refuses another key, a changed body, and a stale or future timestamp', () => {
    const forged = generateDiscordKeyPair();
    expect(check(signDiscordRequest(forged.privateKey, now, body))).toMatchObject({
      reason: 'bad_signature',
    });
    expect(check(signDiscordRequest(keys.privateKey, now, body), '{"type": 1}')).toMatchObject({
      reason: 'bad_signature',
    });
    expect(check(signDiscordRequest(keys.privateKey, now - 301, body))).toMatchObject({
      reason: 'stale_timestamp',
    });
    expect(check(signDiscordRequest(keys.privateKey, now + 301, body))).toMatchObject({
      reason: 'stale_timestamp',
    });
  });

  it('refuses missing or malformed headers and a missing body', () => {
    const signed = signDiscordRequest(keys.privateKey, now, body);
    expect(check({ ...signed, 'X-Signature-Ed25519': 'zz' })).toMatchObject({
      reason: 'missing_signature',
    });
    expect(check({ 'X-Signature-Ed25519': signed['X-Signature-Ed25519'] })).toMatchObject({
      reason: 'missing_timestamp',
    });
    expect(
      verifyDiscordSignature(publicKey, undefined, String(now), signed['X-Signature-Ed25519'], now),
    ).toMatchObject({ reason: 'missing_body' });
  });

  it('reads the portal’s hex key and refuses anything else', () => {
    expect(() => discordPublicKey('abc')).toThrow();
  });
});
