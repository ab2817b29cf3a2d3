import { redactDatabaseUrl } from './database-url.redactor';

describe('redactDatabaseUrl', () => {
  it('hides the password and keeps what an operator needs', () => {
    expect(redactDatabaseUrl('postgres://app:hunter2@db.internal:6543/tollgate')).toBe(
      'postgres://app:***@db.internal:6543/tollgate',
    );
  });

  it('hides a percent-encoded password', () => {
    const redacted = redactDatabaseUrl('postgresql://app:p%40ss%3Aw0rd@db/tollgate');
    expect(redacted).toBe('postgresql://app:***@db/tollgate');
  });

  it('hides passwords given as query parameters', () => {
    const redacted = redactDatabaseUrl(
      'postgres://app@db/tollgate?password=hunter2&sslpassword=keypass&sslmode=require',
    );
    expect(redacted).not.toContain('hunter2');
    expect(redacted).not.toContain('keypass');
    expect(redacted).toContain('sslmode=require');
  });

  it('leaves a URL without a password as it is', () => {
    expect(redactDatabaseUrl('postgres://postgres@127.0.0.1:5432/test')).toBe(
      'postgres://postgres@127.0.0.1:5432/test',
    );
  });

  it('does not echo input that is not a URL', () => {
    expect(redactDatabaseUrl('hunter2 pasted by mistake')).not.toContain('hunter2');
  });
});
