import { validateDatabaseUrl } from './database-url.validator';

describe('validateDatabaseUrl', () => {
  it.each([
    'postgres://postgres@127.0.0.1:5432/test',
    'postgresql://app:s3cret@db.internal/tollgate?sslmode=require',
    'postgres://db',
  ])('accepts %s', (raw) => {
    expect(validateDatabaseUrl(raw)).toMatchObject({ ok: true, url: raw });
  });

  it.each([
    ['undefined', undefined, 'missing'],
    ['an empty string', '', 'missing'],
    ['blanks', '   ', 'missing'],
    ['garbage', 'not a url at all', 'malformed'],
    ['a bad port', 'postgres://user:hunter2@db:99999/x', 'malformed'],
    ['a mysql URL', 'mysql://root:hunter2@db:3306/app', 'unsupported_scheme'],
    ['an http URL', 'http://db:5432/app', 'unsupported_scheme'],
    ['credentials but no host', 'postgres://user:hunter2@/app', 'malformed'],
    ['no host', 'postgres:///app', 'missing_host'],
    ['only a scheme', 'postgres://', 'missing_host'],
  ])('refuses %s with a reason', (_what, raw, code) => {
    const result = validateDatabaseUrl(raw);
    expect(result).toMatchObject({ ok: false, code });
    if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
  });

  it('names the wrong scheme, since that usually explains the mistake', () => {
    expect(validateDatabaseUrl('mysql://db/app')).toMatchObject({
      reason: expect.stringContaining('mysql:') as unknown,
    });
  });

  it.each([
    'mysql://root:hunter2@db:3306/app',
    'postgres://user:hunter2@/app',
    'hunter2',
    'postgres://user:hunter2@db:99999/x',
  ])('never repeats the password of %s', (raw) => {
    const result = validateDatabaseUrl(raw);
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it('hands back a redacted form for logging', () => {
    expect(validateDatabaseUrl('postgres://app:hunter2@db/tollgate')).toEqual({
      ok: true,
      url: 'postgres://app:hunter2@db/tollgate',
      redacted: 'postgres://app:***@db/tollgate',
    });
  });
});
