import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import type { Conversation, Person } from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { projectAlwaysGrants } from '../../../apps/session-service/src/grants/always-grants.projection';
import { ToolGrantsRepository } from '../../../apps/session-service/src/grants/tool-grants.repository';
import { MIGRATIONS } from '../../../apps/session-service/src/migrations';
import { SessionGiven } from '../../../apps/session-service/src/session/domain/testing/session-given';
import type { SessionState } from '../../../apps/session-service/src/session/domain/session-state';
import type { SessionEvent } from '../../../apps/session-service/src/session/domain/session-event';
import { createTestSchema } from '../../support/database';

/** The fixtures' conversation: slack, workspace T0001. */
const inWorkspace = (overrides: Partial<Conversation> = {}): Conversation => ({
  platform: 'slack',
  workspaceId: 'T0001',
  channelId: 'C9999',
  threadId: '1800000000.000100',
  ...overrides,
});

describe('tool grants table ("Always allow", per workspace and tool)', () => {
  const schema = createTestSchema('grants');
  let dataSource: DataSource;
  let grants: ToolGrantsRepository;

  beforeAll(async () => {
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: MIGRATIONS,
      applicationName: 'grants-test',
      poolSize: 2,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
    grants = new ToolGrantsRepository(async () => dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await schema.drop();
  });

  beforeEach(async () => {
    await dataSource.query(`DELETE FROM tool_grants`);
  });

  async function alwaysAnswer(
    optionKey = 'approve_always',
  ): Promise<{ state: SessionState; events: SessionEvent[] }> {
    const given = new SessionGiven();
    await given.message('!write_note {"text":"milk"}');
    const decision = await given.respond('call_2_1', optionKey);
    return { state: decision.state, events: decision.events.map((r) => r.event) };
  }

  it('an approve_always answer allows the tool in every conversation of the workspace', async () => {
    const { state, events } = await alwaysAnswer();
    await dataSource.transaction((manager) => projectAlwaysGrants(manager, state, events));

    await expect(grants.isAlwaysAllowed(inWorkspace(), 'write_note')).resolves.toBe(true);
    await expect(grants.isAlwaysAllowed(inWorkspace(), 'echo')).resolves.toBe(false);
    await expect(
      grants.isAlwaysAllowed(inWorkspace({ workspaceId: 'T0002' }), 'write_note'),
    ).resolves.toBe(false);
    // Workspace ids are only unique within a platform.
    await expect(
      grants.isAlwaysAllowed(inWorkspace({ platform: 'mattermost' }), 'write_note'),
    ).resolves.toBe(false);

    const rows: { workspace_key: string; granted_by: Person; session_id: string }[] =
      await dataSource.query(`SELECT workspace_key, granted_by, session_id FROM tool_grants`);
    expect(rows).toEqual([
      {
        workspace_key: 'slack:T0001',
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
    await expect(grants.isAlwaysAllowed(inWorkspace(), 'write_note')).resolves.toBe(false);
  });

  it('a second grant for the same tool keeps one row, naming the latest approver', async () => {
    const first = await alwaysAnswer();
    await dataSource.transaction((m) => projectAlwaysGrants(m, first.state, first.events));
    const again = first.events.map((event) =>
      event.type === 'ToolApprovalResolved'
        ? { ...event, resolvedBy: { id: 'U0003', displayName: 'Cy' } }
        : event,
    );
    await dataSource.transaction((m) => projectAlwaysGrants(m, first.state, [...again, ...again]));
    const rows: { granted_by: Person }[] = await dataSource.query(
      `SELECT granted_by FROM tool_grants`,
    );
    expect(rows).toEqual([{ granted_by: { id: 'U0003', displayName: 'Cy' } }]);
  });

  it('other answers write nothing', async () => {
    const { state, events } = await alwaysAnswer('approve_session');
    await dataSource.transaction((manager) => projectAlwaysGrants(manager, state, events));
    const rows: unknown[] = await dataSource.query(`SELECT 1 FROM tool_grants`);
    expect(rows).toHaveLength(0);
  });
});
