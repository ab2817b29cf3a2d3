import { InvalidSubjectPrefixError, parseSubjectPrefix, streamNamePart } from './subject-prefix';

describe('parseSubjectPrefix', () => {
  it('defaults to tollgate when unset or empty', () => {
    expect(parseSubjectPrefix(undefined)).toEqual({ ok: true, value: 'tollgate' });
    expect(parseSubjectPrefix('')).toEqual({ ok: true, value: 'tollgate' });
  });

  it.each(['t', 'test_a1b2', 'my-app', `a${'b'.repeat(31)}`])('accepts %s', (raw) => {
    expect(parseSubjectPrefix(raw)).toEqual({ ok: true, value: raw });
  });

  it.each([
    ['a dot', 'tollgate.dev'],
    ['upper case', 'Tollgate'],
    ['33 characters', `a${'b'.repeat(32)}`],
    ['a leading digit', '1tollgate'],
    ['a leading dash', '-tollgate'],
    ['a wildcard', 'toll*'],
    ['a space', 'toll gate'],
  ])('refuses %s', (_case, raw) => {
    const result = parseSubjectPrefix(raw);

    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ reason: 'invalid_prefix' });
    expect(!result.ok && result.detail).toContain('subject prefix');
  });
});

describe('streamNamePart', () => {
  it('upper-cases the prefix and turns - into _', () => {
    expect(streamNamePart('tollgate')).toBe('TOLLGATE');
    expect(streamNamePart('my-app_2')).toBe('MY_APP_2');
  });

  it('throws on a prefix that was never parsed', () => {
    expect(() => streamNamePart('a.b')).toThrow(InvalidSubjectPrefixError);
  });
});
