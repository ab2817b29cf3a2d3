import { createHash } from 'node:crypto';
import { callKeyOf } from './call-key';

const hashed = (callId: string): string =>
  `h-${createHash('sha256').update(Buffer.from(callId, 'utf8')).digest('hex').substring(0, 40)}`;

// One NATS subject token that is neither a wildcard nor split by a dot or whitespace.
const SAFE_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

describe('callKeyOf', () => {
  it.each(['call_3_1', 'toolu_01A09q90qw90lq917835lq9', 'A-b_9', 'x', 'a'.repeat(128)])(
    'keeps %s verbatim',
    (callId) => {
      expect(callKeyOf(callId)).toBe(callId);
    },
  );

  it.each([
    ['a dot', 'call.1'],
    ['a space', 'call 1'],
    ['a star', 'call*'],
    ['a greater-than', 'call>'],
    ['unicode', 'appel_é_☃'],
    ['129 characters', 'a'.repeat(129)],
    ['300 characters', 'b'.repeat(300)],
    ['the empty string', ''],
  ])('hashes an id with %s into one safe token', (_case, callId) => {
    const key = callKeyOf(callId);

    expect(key).toBe(hashed(callId));
    expect(key).toMatch(/^h-[0-9a-f]{40}$/);
    expect(key).toMatch(SAFE_TOKEN);
  });

  it('matches a digest computed outside JavaScript (sha256sum)', () => {
    expect(callKeyOf('has.dot')).toBe('h-03e27fdf32889d2830b1f31162f3f7a0b5aedb1d');
  });

  it('keeps ids that differ only in an unsafe character apart', () => {
    expect(callKeyOf('a.b')).not.toBe(callKeyOf('a b'));
    expect(callKeyOf('a*')).not.toBe(callKeyOf('a>'));
  });
});
