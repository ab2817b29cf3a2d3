import { issueKey, parseKey, secretMatches } from './client-key';

describe('client keys', () => {
  it('issues tg_<key id>_<secret>, stores a salted scrypt hash of the secret, and matches only it', async () => {
    const issued = await issueKey();
    const parsed = parseKey(issued.key);
    expect(parsed?.keyId).toBe(issued.keyId);
    expect(issued.keyHash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(issued.keyHash).not.toContain(parsed?.secret);
    expect(await secretMatches(parsed!.secret, issued.keyHash)).toBe(true);
    expect(await secretMatches(`${parsed!.secret.slice(0, -1)}x`, issued.keyHash)).toBe(false);
    const again = await issueKey();
    expect(again.keyHash).not.toBe(issued.keyHash);
  });

  it('parses nothing that is not exactly a key, and matches no hash of another scheme', async () => {
    for (const junk of [
      '',
      'tg_',
      'tg_abc_def',
      `tg_${'g'.repeat(16)}_${'a'.repeat(43)}`,
      `TG_${'0'.repeat(16)}_${'a'.repeat(43)}`,
    ]) {
      expect(parseKey(junk)).toBeUndefined();
    }
    expect(await secretMatches('x', 'bcrypt$whatever')).toBe(false);
  });
});
