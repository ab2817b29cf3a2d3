import { ApprovalApiSystem } from '../support/approval-api.fixture';
import { waitFor } from '../support/wait-for';
import { tollgate as runCli } from '../support/tollgate-cli';

/**
 * A3: agent clients as an operator makes them with `npm run tollgate -- clients …` (the built
 * CLI, on the approval-api's schema), and the API's answer to every kind of key, on two
 * replicas of the built service.
 */
describe('A3 — clients and keys (process)', () => {
  let system: ApprovalApiSystem;
  let env: Record<string, string>;

  const tollgate = (args: readonly string[]) => runCli(args, env);

  async function createWithCli(extra: string[] = []): Promise<{
    id: string;
    key: string;
    webhookSecret: string | null;
  }> {
    const run = await tollgate([
      'clients',
      'create',
      'ci bot',
      '--platform',
      'slack',
      '--workspace',
      'T1',
      '--channel',
      'C1',
      '--approver',
      'U_ALICE',
      ...extra,
      '--json',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]) as {
      id: string;
      key: string;
      webhookSecret: string | null;
    };
  }

  const ask = { tool: 'Bash', arguments: { command: 'make test' } };

  beforeAll(async () => {
    system = await ApprovalApiSystem.start('a3keys', { replicas: 2 });
    env = { DATABASE_URL: system.schema.url, DATABASE_SCHEMA: system.schema.schema };
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('A3 clients create --json prints the id, the key once and the webhook secret; only a scrypt hash is stored', async () => {
    const made = await createWithCli(['--webhook', 'http://127.0.0.1:9/hook']);
    expect(made.id).toMatch(/^cli_[0-9a-f]{24}$/);
    expect(made.key).toMatch(/^tg_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(made.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    const rows = await system.query<Record<string, unknown>>(
      'SELECT * FROM approval_clients WHERE id = $1',
      [made.id],
    );
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(made.key);
    // The secret is everything after `tg_<key id>_`: base64url, so it may hold `_` itself.
    const secret = made.key.slice('tg_'.length + 16 + 1);
    expect(secret).toHaveLength(43);
    expect(stored).not.toContain(secret);
    expect(rows[0]?.key_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    const withoutWebhook = await createWithCli();
    expect(withoutWebhook.webhookSecret).toBeNull();

    const created = await system.create(made.key, ask);
    expect(created.status).toBe(202);
    const list = await tollgate(['clients', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(made.id);
    expect(list.stdout).not.toContain(made.key);
    expect(list.stdout).not.toContain(made.webhookSecret);
  });

  it('A3 an unknown, malformed, wrong or missing key is the same 401 unauthorized', async () => {
    const { key } = await createWithCli();
    const [, keyId, secret] = key.split('_');
    const wrongSecret = `tg_${keyId}_${'A'.repeat(secret?.length ?? 43)}`;
    const unknownId = `tg_${'0'.repeat(16)}_${secret}`;
    const answers = await Promise.all(
      [undefined, '', 'tg_', 'not-a-key', `${key}x`, wrongSecret, unknownId, key.toUpperCase()].map(
        (candidate) =>
          system.call('POST', '/v1/approvals', {
            ...(candidate === undefined ? {} : { key: candidate }),
            body: ask,
            headers: { 'idempotency-key': 'k' },
          }),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual(answers[0]?.body);
    }
    expect(answers[0]?.body.error).toBe('unauthorized');
    // The wrong secret's refusal is remembered: sent again it is still refused, and
    // remembering it did not make the right secret of the same key id a refusal too.
    for (let again = 0; again < 2; again += 1) {
      const wrongAgain = await system.call('GET', '/v1/approvals/apr_00000000000000000000000000', {
        key: wrongSecret,
      });
      expect(wrongAgain.status).toBe(401);
    }
    const right = await system.call('GET', '/v1/approvals/apr_00000000000000000000000000', {
      key,
    });
    expect(right.status).toBe(404);
    const basic = await system.call('GET', '/v1/approvals/apr_00000000000000000000000000', {
      headers: { authorization: `Basic ${key}` },
    });
    expect(basic.status).toBe(401);
  });

  it('A3 clients revoke is effective on every replica within 5 s', async () => {
    const { id, key } = await createWithCli();
    for (const replica of [0, 1]) {
      expect((await system.create(key, ask, undefined, replica)).status).toBe(202);
    }
    const revoked = await tollgate(['clients', 'revoke', id]);
    expect(revoked.code).toBe(0);
    const after = Date.now();
    for (const replica of [0, 1]) {
      await waitFor(
        `replica ${replica} to refuse the revoked key`,
        async () => (await system.create(key, ask, undefined, replica)).status === 401,
        { timeoutMs: Math.max(1, 5_000 - (Date.now() - after)) },
      );
    }
    const list = await tollgate(['clients', 'list']);
    expect(list.stdout).toMatch(new RegExp(`${id}.*revoked`));
  });

  it('A3 clients rotate: the old key is refused at once, the new one works', async () => {
    const { id, key } = await createWithCli();
    expect((await system.create(key, ask)).status).toBe(202);
    const rotated = await tollgate(['clients', 'rotate', id, '--json']);
    expect(rotated.code).toBe(0);
    const { key: fresh } = JSON.parse(rotated.stdout) as { key: string };
    expect(fresh).not.toBe(key);
    for (const replica of [0, 1]) {
      expect((await system.create(key, ask, undefined, replica)).status).toBe(401);
      expect((await system.create(fresh, ask, undefined, replica)).status).toBe(202);
    }
  });

  it('A3 clients update adds a route and an approver; before that they are 403 route_not_allowed', async () => {
    const { id, key } = await createWithCli();
    const elsewhere = { ...ask, route: { channel: 'C2', thread: '171.1' }, approvers: ['U_BOB'] };
    const refused = await system.create(key, elsewhere);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('route_not_allowed');
    const updated = await tollgate([
      'clients',
      'update',
      id,
      '--channel',
      'C2',
      '--approver',
      'U_BOB',
    ]);
    expect(updated.code).toBe(0);
    expect((await system.create(key, elsewhere)).status).toBe(202);
  });

  it('A3 clients create refuses bad options with exit 2 and creates nothing', async () => {
    const before = await system.query<{ n: string }>('SELECT count(*) AS n FROM approval_clients');
    for (const args of [
      [
        'clients',
        'create',
        'x',
        '--platform',
        'irc',
        '--workspace',
        'T',
        '--channel',
        'C',
        '--approver',
        'U',
      ],
      ['clients', 'create', 'x', '--platform', 'slack', '--workspace', 'T', '--channel', 'C'],
      ['clients', 'create', 'x', '--platform', 'slack', '--workspace', 'T', '--approver', 'U'],
      [
        'clients',
        'create',
        'x',
        '--platform',
        'slack',
        '--workspace',
        'T',
        '--channel',
        'C',
        '--approver',
        'U',
        '--webhook',
        'ftp://x',
      ],
    ]) {
      const run = await tollgate(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
    }
    const after = await system.query<{ n: string }>('SELECT count(*) AS n FROM approval_clients');
    expect(after[0]?.n).toBe(before[0]?.n);
  });
});
