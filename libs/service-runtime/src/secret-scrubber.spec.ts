import { createSecretScrubber, REDACTED } from './secret-scrubber';

/** A log line as pino writes it, with `fields` in it. */
const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 'info', service: 'test', ...fields, msg: 'm' });

describe('X4 createSecretScrubber', () => {
  const scrub = createSecretScrubber(['configured-bot-token-1', 'pa"ss\\word', 'p@ss/w:rd']);

  it('X4 censors a configured value anywhere in the line, as JSON and as percent-encoding show it', () => {
    const out = scrub(
      line({
        msg2: 'failed with configured-bot-token-1 in it',
        quoted: 'pa"ss\\word',
        url: `postgres://app:${encodeURIComponent('p@ss/w:rd')}@db/x`,
      }),
    );
    expect(out).not.toContain('configured-bot-token-1');
    expect(out).not.toContain(JSON.stringify('pa"ss\\word').slice(1, -1));
    expect(out).not.toContain(encodeURIComponent('p@ss/w:rd'));
    expect(JSON.parse(out)).toMatchObject({ msg2: `failed with ${REDACTED} in it` });
  });

  it.each([
    [
      'a Discord webhook token',
      'POST /api/v10/webhooks/1100000000000000001/itok_abcdefghijklmnopqrstuvwxyz0123/messages/@original',
      'itok_abcdefghijklmnopqrstuvwxyz0123',
    ],
    [
      'an interaction callback token',
      '/api/v10/interactions/1234567890123/aW50ZXJhY3Rpb246MTIzNDU2Nzg5MA/callback',
      'aW50ZXJhY3Rpb246MTIzNDU2Nzg5MA',
    ],
    ['a Slack token', 'auth failed for xoxb-1111-2222-AbCdEfGh', 'xoxb-1111-2222-AbCdEfGh'],
    [
      'a Bot authorization',
      'Authorization: Bot MTA5ODc2NTQzMjEw.GhIjKl.abcdefghij',
      'MTA5ODc2NTQzMjEw.GhIjKl.abcdefghij',
    ],
    ['a Bearer authorization', 'sent Bearer mmtokenabcdefghijklmnop0', 'mmtokenabcdefghijklmnop0'],
    [
      'a password in a postgres URL',
      'connecting to postgres://app:hunter22@db:5432/tollgate',
      'hunter22',
    ],
    ['a password in a NATS URL', 'nats://svc:n4ts-pass@127.0.0.1:4222', 'n4ts-pass'],
    ['a token in a query string', 'GET /hook?token=abcdef123456&x=1', 'abcdef123456'],
    [
      'a Slack response URL',
      'https://hooks.slack.com/actions/T0001/123456/SeCrEtPaRt',
      'SeCrEtPaRt',
    ],
    [
      'a JWT',
      'jwt eyJhbGciOiJFZDI1NTE5In0.eyJzdWIiOiJVQUJDIn0.c2lnbmF0dXJl',
      'eyJzdWIiOiJVQUJDIn0',
    ],
    ['a NATS nkey seed', `seed SUAM${'A'.repeat(54)}`, `SUAM${'A'.repeat(54)}`],
  ])('X4 censors %s inside a string', (_what, text, secret) => {
    const out = scrub(line({ note: text }));
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
    expect(() => JSON.parse(out) as unknown).not.toThrow();
  });

  it('X4 censors credential-named keys at any depth, and keeps the key', () => {
    const out = scrub(
      line({
        err: {
          request: { headers: { Authorization: 'Bot abc', 'set-cookie': ['a=b', 'c=d'] } },
          config: { nested: { deeper: { token: 'short', client_secret: 'x' } } },
          response_url: 'https://example.test/r/1',
        },
      }),
    );
    const parsed = JSON.parse(out) as {
      err: {
        request: { headers: Record<string, unknown> };
        config: { nested: { deeper: unknown } };
        response_url: unknown;
      };
    };
    expect(parsed.err.request.headers.Authorization).toBe(REDACTED);
    expect(parsed.err.request.headers['set-cookie']).toEqual([REDACTED]);
    expect(parsed.err.config.nested.deeper).toEqual({ token: REDACTED, client_secret: REDACTED });
    expect(parsed.err.response_url).toBe(REDACTED);
  });

  it('X4 leaves ordinary lines as they were', () => {
    const ordinary = line({
      sessionId: 'slack:T0123:C0456:1700000000.000100',
      reason: 'signature_mismatch',
      tokens: 3,
      url: 'http://127.0.0.1:4222/health',
      note: 'the bot answered',
    });
    expect(scrub(ordinary)).toBe(ordinary);
  });

  it('X4 ignores configured values too short to scrub without censoring ordinary words', () => {
    const short = createSecretScrubber(['info']);
    const ordinary = line({ note: 'info' });
    expect(short(ordinary)).toBe(ordinary);
  });
});
