import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import type { Conversation, Person } from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { projectAlwaysGrants } from '../../../apps/session-service/src/grants/always-grants.projection';
import {
  type JournaledEvent,
  type SessionState,
  ToolGrantsRepository,
} from '@tollgate/session-read-model';
import { MIGRATIONS } from '../../../apps/session-service/src/migrations';
import {
  REQUESTER,
  SessionGiven,
  SOMEONE_ELSE,
} from '../../../apps/session-service/src/session/domain/testing/session-given';
import { AgentSessionGiven } from '../../../apps/session-service/src/session/domain/testing/agent-session-given';
import { approvalId, clientId } from '../../../libs/protocol/src/testing/approval-fixtures';
import { createTestSchema, type TestSchema } from '../../support/database';

/** The fixtures' conversation: slack, workspace T0001. */
const inWorkspace = (overrides: Partial<Conversation> = {}): Conversation => ({
  platform: 'slack',
  workspaceId: 'T0001',
  channelId: 'C9999',
  threadId: '1800000000.000100',
  ...overrides,
});

const silent = pino({ level: 'silent' });

async function migrated(
  schema: TestSchema,
  migrations: typeof MIGRATIONS = MIGRATIONS,
): Promise<DataSource> {
  const dataSource = createDataSource({
    url: schema.url,
    schema: schema.schema,
    migrations,
    applicationName: 'grants-test',
    poolSize: 2,
  });
  await dataSource.initialize();
  await prepareSchemaAndMigrate(dataSource, silent);
  return dataSource;
}

async function alwaysAnswer(
  optionKey = 'approve_always',
): Promise<{ state: SessionState; events: JournaledEvent[]; journal: JournaledEvent[] }> {
  const given = new SessionGiven();
  await given.message('!write_note {"text":"milk"}');
  const decision = await given.respond('call_2_1', optionKey);
  return { state: decision.state, events: [...decision.events], journal: given.journal };
}

function answeredBy(events: readonly JournaledEvent[], person: Person, occurredAt?: string) {
  return events.map((e) =>
    e.event.type === 'ToolApprovalResolved'
      ? { ...e, occurredAt: occurredAt ?? e.occurredAt, event: { ...e.event, resolvedBy: person } }
      : e,
  );
}

describe('tool grants table ("Always allow", per person, tool, platform and workspace)', () => {
  const schema = createTestSchema('grants');
  let dataSource: DataSource;
  let grants: ToolGrantsRepository;

  beforeAll(async () => {
    dataSource = await migrated(schema);
    grants = new ToolGrantsRepository(async () => dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await schema.drop();
  });

  beforeEach(async () => {
    await dataSource.query(`DELETE FROM tool_grants`);
  });

  it('A2 an "Always allow" given on an API prompt covers that approver and client only, never the chat nor another client', async () => {
    const session = new AgentSessionGiven();
    await session.request({ approvers: [REQUESTER, SOMEONE_ELSE] });
    const decision = await session.respond(approvalId, 'approve_always', { sender: SOMEONE_ELSE });
    await dataSource.transaction((manager) =>
      projectAlwaysGrants(manager, decision.state, session.journal.slice(-1)),
    );

    const where = inWorkspace({ channelId: 'C0001' });
    await expect(grants.isAlwaysAllowed(where, SOMEONE_ELSE.id, 'Bash', clientId)).resolves.toBe(
      true,
    );
    await expect(grants.isAlwaysAllowed(where, REQUESTER.id, 'Bash', clientId)).resolves.toBe(
      false,
    );
    await expect(
      grants.isAlwaysAllowed(where, SOMEONE_ELSE.id, 'Bash', 'cli_ffffffffffffffffffffffff'),
    ).resolves.toBe(false);
    // The session's own chat turns ('' is the chat's scope) are not covered either.
    await expect(grants.isAlwaysAllowed(where, SOMEONE_ELSE.id, 'Bash')).resolves.toBe(false);
    expect((await grants.list({ clientId })).map((g) => [g.personId, g.toolName])).toEqual([
      [SOMEONE_ELSE.id, 'Bash'],
    ]);
  });

  it('X2 an approve_always answer allows the tool for the approver only, in that workspace', async () => {
    const { state, events } = await alwaysAnswer();
    await dataSource.transaction((manager) => projectAlwaysGrants(manager, state, events));

    await expect(grants.isAlwaysAllowed(inWorkspace(), REQUESTER.id, 'write_note')).resolves.toBe(
      true,
    );
    // Another person of the same workspace is not covered.
    await expect(
      grants.isAlwaysAllowed(inWorkspace(), SOMEONE_ELSE.id, 'write_note'),
    ).resolves.toBe(false);
    await expect(grants.isAlwaysAllowed(inWorkspace(), REQUESTER.id, 'echo')).resolves.toBe(false);
    await expect(
      grants.isAlwaysAllowed(inWorkspace({ workspaceId: 'T0002' }), REQUESTER.id, 'write_note'),
    ).resolves.toBe(false);
    // Workspace ids are only unique within a platform.
    await expect(
      grants.isAlwaysAllowed(inWorkspace({ platform: 'mattermost' }), REQUESTER.id, 'write_note'),
    ).resolves.toBe(false);

    const rows: {
      platform: string;
      workspace_id: string;
      person_id: string;
      granted_by: Person;
      session_id: string;
    }[] = await dataSource.query(
      `SELECT platform, workspace_id, person_id, granted_by, session_id FROM tool_grants`,
    );
    expect(rows).toEqual([
      {
        platform: 'slack',
        workspace_id: 'T0001',
        person_id: 'U0001',
        granted_by: { id: 'U0001', displayName: 'Ada' },
        session_id: state.sessionId,
      },
    ]);
  });

  it('exists only if the transaction journaling the answer commits', async () => {
    const { state, events } = await alwaysAnswer();
    await expect(
      dataSource.transaction(async (manager) => {
        await projectAlwaysGrants(manager, state, events);
        throw new Error('the journal append failed');
      }),
    ).rejects.toThrow('the journal append failed');
    await expect(grants.isAlwaysAllowed(inWorkspace(), REQUESTER.id, 'write_note')).resolves.toBe(
      false,
    );
  });

  it('X2 a second person’s answer for the same tool is a second grant, not a replacement', async () => {
    const first = await alwaysAnswer();
    await dataSource.transaction((m) => projectAlwaysGrants(m, first.state, first.events));
    const cy = { id: 'U0003', displayName: 'Cy' };
    const again = answeredBy(first.events, cy);
    await dataSource.transaction((m) => projectAlwaysGrants(m, first.state, [...again, ...again]));

    expect((await grants.list({})).map((g) => g.personId)).toEqual(['U0001', 'U0003']);
  });

  it('X2 a revoked grant is not brought back by replaying an answer given before the revoke', async () => {
    const { state, events } = await alwaysAnswer();
    await dataSource.transaction((m) => projectAlwaysGrants(m, state, events));
    const revoked = await grants.revoke({ personId: REQUESTER.id });
    expect(revoked.map((g) => [g.personId, g.toolName])).toEqual([['U0001', 'write_note']]);

    // The same journaled answer projected again (a rebuild, a replayed decision).
    await dataSource.transaction((m) => projectAlwaysGrants(m, state, events));
    await expect(grants.isAlwaysAllowed(inWorkspace(), REQUESTER.id, 'write_note')).resolves.toBe(
      false,
    );
    expect(await grants.list({})).toEqual([]);

    // A new answer, given after the revoke, grants again.
    const later = answeredBy(events, REQUESTER, new Date(Date.now() + 60_000).toISOString());
    await dataSource.transaction((m) => projectAlwaysGrants(m, state, later));
    await expect(grants.isAlwaysAllowed(inWorkspace(), REQUESTER.id, 'write_note')).resolves.toBe(
      true,
    );
  });

  it('other answers write nothing', async () => {
    const { state, events } = await alwaysAnswer('approve_session');
    await dataSource.transaction((manager) => projectAlwaysGrants(manager, state, events));
    const rows: unknown[] = await dataSource.query(`SELECT 1 FROM tool_grants`);
    expect(rows).toHaveLength(0);
  });
});

describe('X2 migrating workspace-wide grants to per-person grants', () => {
  const schema = createTestSchema('grants_mig');
  afterAll(() => schema.drop());

  it('X2 keeps a row as its granter’s grant when the journal holds that answer, drops the rest', async () => {
    // Every migration before this one (later ones, such as the per-client key, need its shape).
    const at = MIGRATIONS.findIndex((m) => m.name === 'ToolGrantsPerPerson1795998600000');
    const before = MIGRATIONS.slice(0, at);
    expect(at).toBeGreaterThan(0);
    const old = await migrated(schema, before);
    try {
      // A journaled approve_always answer by Ada for write_note (what the old service wrote).
      const { state, journal: events } = await alwaysAnswer();
      await old.query(
        `INSERT INTO session_events (session_id, seq, type, data, occurred_at)
         SELECT $1, * FROM unnest($2::int[], $3::text[], $4::jsonb[], $5::timestamptz[])`,
        [
          state.sessionId,
          events.map((e) => e.seq),
          events.map((e) => e.event.type),
          events.map((e) => JSON.stringify(e.event)),
          events.map((e) => e.occurredAt),
        ],
      );
      // The journal backs the first row only: the second names someone who never answered
      // so in that session, the third a tool the answer was not for.
      await old.query(
        `INSERT INTO tool_grants (workspace_key, tool_name, granted_by, session_id) VALUES
           ('slack:T0001', 'write_note', $1, $3),
           ('discord:', 'write_note', $2, $3),
           ('slack:T0001', 'echo', $1, $3)`,
        [JSON.stringify(REQUESTER), JSON.stringify(SOMEONE_ELSE), state.sessionId],
      );
    } finally {
      await old.destroy();
    }

    const now = await migrated(schema);
    try {
      const grants = new ToolGrantsRepository(async () => now);
      expect(
        (await grants.list({})).map((g) => [g.platform, g.workspaceId, g.personId, g.toolName]),
      ).toEqual([['slack', 'T0001', 'U0001', 'write_note']]);
      await expect(
        grants.isAlwaysAllowed(inWorkspace(), SOMEONE_ELSE.id, 'write_note'),
      ).resolves.toBe(false);
    } finally {
      await now.destroy();
    }
  });
});
