import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import {
  CommandLedgerPlatform1764806400000,
  SessionJournal1764460800000,
  SessionsInFlight1764547200000,
} from '@tollgate/session-read-model';
import { createTestSchema } from '../../support/database';

describe('X8 — the command ledger is keyed by platform and id', () => {
  const schema = createTestSchema('ledger');

  afterAll(async () => {
    await schema.drop();
  });

  const open = (migrations: Parameters<typeof createDataSource>[0]['migrations']) =>
    createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations,
      applicationName: 'ledger-migration-test',
      poolSize: 1,
    });

  it('X8 existing rows take their platform from their session id, and two platforms may share an id', async () => {
    const before = open([SessionJournal1764460800000, SessionsInFlight1764547200000]);
    await before.initialize();
    await prepareSchemaAndMigrate(before, pino({ level: 'silent' }));
    await before.query(
      `INSERT INTO processed_commands (command_id, session_id) VALUES
        ('Ev1', 'slack-${'a'.repeat(32)}'), ('trig', 'mattermost-${'b'.repeat(32)}')`,
    );
    await before.destroy();

    const after = open([
      SessionJournal1764460800000,
      SessionsInFlight1764547200000,
      CommandLedgerPlatform1764806400000,
    ]);
    await after.initialize();
    await prepareSchemaAndMigrate(after, pino({ level: 'silent' }));
    const rows: { platform: string; command_id: string }[] = await after.query(
      `SELECT platform, command_id FROM processed_commands ORDER BY command_id`,
    );
    expect(rows).toEqual([
      { platform: 'slack', command_id: 'Ev1' },
      { platform: 'mattermost', command_id: 'trig' },
    ]);
    await after.query(
      `INSERT INTO processed_commands (platform, command_id, session_id)
       VALUES ('mattermost', 'Ev1', 'mattermost-${'c'.repeat(32)}')`,
    );
    await expect(
      after.query(
        `INSERT INTO processed_commands (platform, command_id, session_id)
         VALUES ('slack', 'Ev1', 'slack-${'d'.repeat(32)}')`,
      ),
    ).rejects.toMatchObject({ driverError: { code: '23505' } });
    await after.destroy();
  });
});
