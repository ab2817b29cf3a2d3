import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { DLQ_MAX_AGE_DAYS } from '@tollgate/protocol';
import {
  PROCESSED_COMMAND_RETENTION_DAYS,
  pruneJournalTables,
} from '../../../apps/session-service/src/journal/journal-housekeeping';
import { SESSION_SERVICE_MIGRATIONS } from '@tollgate/session-read-model';
import { createTestSchema } from '../../support/database';

describe('journal housekeeping', () => {
  const schema = createTestSchema('housekeeping');
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: SESSION_SERVICE_MIGRATIONS,
      applicationName: 'housekeeping-test',
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
  });

  afterAll(async () => {
    await dataSource.destroy();
    await schema.drop();
  });

  it('X12 keeps command ids a day past the DLQ (31 days) and sent outbox rows for a day; unsent rows stay', async () => {
    expect(PROCESSED_COMMAND_RETENTION_DAYS).toBeGreaterThan(DLQ_MAX_AGE_DAYS);
    await dataSource.query(
      `INSERT INTO processed_commands (platform, command_id, session_id, processed_at) VALUES
        ('slack', 'fresh', 's', now() - interval '30 days 23 hours'),
        ('slack', 'old', 's', now() - interval '31 days 1 hour')`,
    );
    await dataSource.query(
      `INSERT INTO outbox (id, session_id, subject, payload, sent_at) VALUES
        ('sent-old', 's', 'x', '{}', now() - interval '25 hours'),
        ('sent-new', 's', 'x', '{}', now() - interval '1 hour'),
        ('unsent', 's', 'x', '{}', NULL)`,
    );
    expect(await pruneJournalTables(dataSource)).toEqual({ commands: 1, outbox: 1 });
    const commands: { command_id: string }[] = await dataSource.query(
      `SELECT command_id FROM processed_commands ORDER BY command_id`,
    );
    expect(commands.map((c) => c.command_id)).toEqual(['fresh']);
    const outbox: { id: string }[] = await dataSource.query(`SELECT id FROM outbox ORDER BY id`);
    expect(outbox.map((o) => o.id)).toEqual(['sent-new', 'unsent']);
  });
});
