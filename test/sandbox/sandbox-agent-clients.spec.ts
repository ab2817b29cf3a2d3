import { join } from 'node:path';
import { SandboxAgent } from '../../apps/sandbox/src/agent/sandbox-agent';
import { createTestSchema } from '../support/database';
import { tollgate } from '../support/tollgate-cli';

const ROOT = join(__dirname, '..', '..');

/** The sandbox's approval-api clients, through the built operator CLI on a real schema. */
describe('D5 — the sandbox keeps one agent client per panel across starts', () => {
  const schema = createTestSchema('sbagent');
  const env = { DATABASE_URL: schema.url, DATABASE_SCHEMA: schema.schema };
  const route = { workspaceId: 'T_SANDBOX', channelId: 'C_SANDBOX' };

  afterAll(() => schema.drop());

  async function activeClients(): Promise<{ id: string; name: string }[]> {
    const listed = await tollgate(['clients', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    return listed.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line))
      .filter((c) => c.revokedAt === null);
  }

  it('D5 a second start keeps the first start’s client under a new key; a stray duplicate and a client of an old route are revoked', async () => {
    const first = new SandboxAgent(ROOT, env);
    expect(await first.provideClients(new Map([['slack', route]]))).toEqual(
      new Map([['slack', 'created']]),
    );
    const [made] = await activeClients();
    expect(made).toMatchObject({ name: 'sandbox agent (slack)' });

    // An older build made a fresh client on every start: one such stray is left active.
    const stray = await tollgate(
      [
        'clients',
        'create',
        'sandbox agent (slack)',
        '--platform',
        'slack',
        `--workspace=${route.workspaceId}`,
        '--channel',
        route.channelId,
        '--approver',
        'U_SOMEONE',
        '--json',
      ],
      env,
    );
    expect(stray.code).toBe(0);
    expect(await activeClients()).toHaveLength(2);

    const second = new SandboxAgent(ROOT, env);
    expect(await second.provideClients(new Map([['slack', route]]))).toEqual(
      new Map([['slack', 'kept']]),
    );
    expect((await activeClients()).map((c) => c.id)).toEqual([made.id]);
    expect(second.has('slack')).toBe(true);

    // A restored panel in another channel: the client of the old route goes, a new one comes.
    const third = new SandboxAgent(ROOT, env);
    const moved = { ...route, channelId: 'C_ELSEWHERE' };
    expect(await third.provideClients(new Map([['slack', moved]]))).toEqual(
      new Map([['slack', 'created']]),
    );
    const active = await activeClients();
    expect(active).toHaveLength(1);
    expect(active[0].id).not.toBe(made.id);
  });
});
