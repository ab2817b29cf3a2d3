import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import type { Conversation, Person } from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { projectAlwaysGrants } from '../../apps/session-service/src/grants/always-grants.projection';
import {
  initialSessionState,
  type JournaledEvent,
  type SessionState,
  ToolGrantsRepository,
} from '@tollgate/session-read-model';
import { MIGRATIONS } from '../../apps/session-service/src/migrations';
import { createTestSchema, type TestSchema } from '../support/database';
import { tollgate } from '../support/tollgate-cli';

const alice: Person = { id: 'U_ALICE', displayName: 'Alice' };
const bob: Person = { id: 'U_BOB', displayName: 'Bob "the builder"' };
const slack: Conversation = {
  platform: 'slack',
  workspaceId: 'T1',
  channelId: 'C1',
  threadId: '1.1',
};
const dm: Conversation = { platform: 'discord', workspaceId: '', channelId: 'D1', threadId: '' };

describe('X2 — the operator CLI: grants list and revoke (process)', () => {
  let schema: TestSchema;
  let dataSource: DataSource;
  let grants: ToolGrantsRepository;
  let env: Record<string, string>;

  /** An approve_always answer as the session-service projects it, in its own transaction. */
  async function grant(
    conversation: Conversation,
    person: Person,
    toolName: string,
    occurredAt = new Date().toISOString(),
  ) {
    const sessionId = `${conversation.platform}-${conversation.channelId}`;
    const state = {
      ...initialSessionState(sessionId),
      conversation,
      requested: { c1: { request: { toolName } } },
    } as unknown as SessionState;
    const events: JournaledEvent[] = [
      {
        seq: 5,
        occurredAt,
        event: {
          type: 'ToolApprovalResolved',
          commandId: `click-${person.id}`,
          callId: 'c1',
          optionKey: 'approve_always',
          label: 'Always allow',
          approved: true,
          resolvedBy: person,
        },
      },
    ];
    await dataSource.transaction((m) => projectAlwaysGrants(m, state, events));
    return { state, events };
  }

  beforeAll(async () => {
    schema = createTestSchema('cli');
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: MIGRATIONS,
      applicationName: 'cli-test',
      poolSize: 2,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
    grants = new ToolGrantsRepository(async () => dataSource);
    env = { DATABASE_URL: schema.url, DATABASE_SCHEMA: schema.schema };
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await schema?.drop();
  });

  beforeEach(async () => {
    await dataSource.query(`DELETE FROM tool_grants`);
    await grant(slack, alice, 'write_note');
    await grant(slack, bob, 'write_note');
    await grant(dm, alice, 'write_note');
    await grant(dm, alice, 'echo');
  });

  it('X2 grants list shows each grant with its person, and filters by platform, workspace, person and tool', async () => {
    const all = await tollgate(['grants', 'list'], env);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    const lines = all.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(
      /^platform=discord workspace="" person=U_ALICE name="Alice" tool=echo granted=\S+Z session=discord-D1$/,
    );
    expect(lines[3]).toContain(
      'platform=slack workspace=T1 person=U_BOB name="Bob \\"the builder\\""',
    );
    expect(lines[4]).toBe('4 grants matched any grant');

    const dmOnly = await tollgate(['grants', 'list', '--platform', 'discord', '--workspace='], env);
    expect(dmOnly.stdout).toContain('2 grants matched platform=discord workspace=""');

    const bobs = await tollgate(['grants', 'list', '--person', 'U_BOB', '--json'], env);
    expect(bobs.code).toBe(0);
    expect(
      bobs.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        platform: 'slack',
        workspaceId: 'T1',
        person: bob,
        toolName: 'write_note',
        grantedAt: expect.any(String),
        sessionId: 'slack-C1',
        kind: 'always',
      },
    ]);

    const none = await tollgate(['grants', 'list', '--tool', 'rm_rf'], env);
    expect(none).toMatchObject({ code: 0, stdout: 'no grant matched tool=rm_rf\n' });
  });

  it('A2 a grant given on an approval API prompt is listed with its client, and --client selects by it', async () => {
    const clientId = 'cli_0123456789abcdef01234567';
    const state = { ...initialSessionState('slack-api-x'), conversation: slack } as SessionState;
    const events: JournaledEvent[] = [
      {
        seq: 3,
        occurredAt: new Date().toISOString(),
        event: {
          type: 'ApiApprovalDecided',
          commandId: 'click-api',
          approvalId: 'apr_0123456789abcdefghijklmnop',
          clientId,
          conversation: slack,
          tool: 'Bash',
          status: 'approved',
          decision: {
            option: 'approve_always',
            by: { platform: 'slack', id: bob.id },
            via: 'click',
            reason: null,
          },
        },
      },
    ];
    await dataSource.transaction((m) => projectAlwaysGrants(m, state, events));

    const listed = await tollgate(['grants', 'list', '--client', clientId], env);
    expect(listed.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^platform=slack workspace=T1 person=U_BOB tool=Bash client=cli_\w+ /),
      `1 grant matched client=${clientId}`,
    ]);
    const chat = await tollgate(['grants', 'list', '--client='], env);
    expect(chat.stdout).toContain('4 grants matched client=""');
    const revoked = await tollgate(['grants', 'revoke', '--client', clientId], env);
    expect(revoked.code).toBe(0);
    await expect(grants.isAlwaysAllowed(slack, bob.id, 'Bash', clientId)).resolves.toBe(false);
    expect((await grants.list({})).length).toBe(4);
  });

  it('X2 grants revoke removes exactly the matching grants, says so, and a replayed answer does not bring them back', async () => {
    const revoked = await tollgate(
      ['grants', 'revoke', '--platform=discord', '--workspace=', '--person=U_ALICE', '--tool=echo'],
      env,
    );
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(
      /^revoked 1 grant:\n {2}platform=discord workspace="" person=U_ALICE name="Alice" tool=echo granted=\S+ session=discord-D1\n$/,
    );
    await expect(grants.isAlwaysAllowed(dm, alice.id, 'echo')).resolves.toBe(false);
    await expect(grants.isAlwaysAllowed(dm, alice.id, 'write_note')).resolves.toBe(true);

    const again = await tollgate(['grants', 'revoke', '--person=U_ALICE', '--tool=echo'], env);
    expect(again).toMatchObject({
      code: 0,
      stdout: 'no grant matched person=U_ALICE tool=echo; nothing revoked\n',
    });

    // The session-service projecting the same, earlier answer again does not undo the revoke.
    await grant(dm, alice, 'echo', new Date(Date.now() - 60_000).toISOString());
    await expect(grants.isAlwaysAllowed(dm, alice.id, 'echo')).resolves.toBe(false);

    const listed = await tollgate(['grants', 'list', '--person', 'U_ALICE'], env);
    expect(listed.stdout).not.toContain('tool=echo');
    expect(listed.stdout).toContain('2 grants matched person=U_ALICE');
  });

  it('X2 grants revoke with no filter is refused and changes nothing; --all revokes every grant', async () => {
    const refused = await tollgate(['grants', 'revoke'], env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('refusing to revoke every grant');
    expect(await grants.list({})).toHaveLength(4);

    const all = await tollgate(['grants', 'revoke', '--all'], env);
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n')[0]).toBe('revoked 4 grants:');
    expect(await grants.list({})).toEqual([]);
  });

  it('X2 the CLI explains itself and refuses bad input with exit 2, an unusable database with exit 1', async () => {
    const help = await tollgate(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('grants list');
    expect(help.stdout).toContain('grants revoke');
    for (const command of ['list', 'revoke']) {
      const own = await tollgate(['grants', command, '--help'], {});
      expect(own.code).toBe(0);
      expect(own.stdout).toContain(`Usage: npm run tollgate -- grants ${command} [--platform P]`);
    }

    expect((await tollgate(['grants', 'forget'], env)).code).toBe(2);
    const badPlatform = await tollgate(['grants', 'list', '--platform', 'irc'], env);
    expect(badPlatform).toMatchObject({ code: 2 });
    expect(badPlatform.stderr).toContain('--platform must be one of slack, discord, mattermost');

    const noUrl = await tollgate(['grants', 'list'], { DATABASE_SCHEMA: schema.schema });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('invalid configuration: DATABASE_URL');
    const badSchema = await tollgate(['grants', 'list'], { ...env, DATABASE_SCHEMA: 'Bad-Name' });
    expect(badSchema.code).toBe(2);
    expect(badSchema.stderr).toContain('DATABASE_SCHEMA');

    const unreachable = await tollgate(['grants', 'list'], {
      DATABASE_URL: 'postgres://op:hunter2@127.0.0.1:1/test',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach the database');
    expect(unreachable.stderr).not.toContain('hunter2');

    const unmigrated = await tollgate(['grants', 'list'], {
      ...env,
      DATABASE_SCHEMA: `${schema.schema.slice(0, 50)}_none`,
    });
    expect(unmigrated.code).toBe(1);
    expect(unmigrated.stderr).toContain('is not migrated');
  });
});
