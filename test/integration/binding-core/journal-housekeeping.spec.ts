import {
  BINDING_CORE_MIGRATIONS,
  pruneClearedPrompts,
  pruneDeliveredOutputs,
} from '@tollgate/binding-core';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { createTestSchema } from '../../support/database';

describe('binding journal housekeeping', () => {
  const schema = createTestSchema('delivered');
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: [...BINDING_CORE_MIGRATIONS],
      applicationName: 'delivered-housekeeping-test',
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
  });

  afterAll(async () => {
    await dataSource.destroy();
    await schema.drop();
  });

  it('forgets deliveries the output stream can no longer redeliver, and keeps the rest', async () => {
    await dataSource.query(
      `INSERT INTO delivered_outputs (output_id, kind, delivered_at) VALUES
        ('aged-out', 'text', now() - interval '15 days 1 hour'),
        ('still-redeliverable', 'text', now() - interval '14 days 23 hours'),
        ('never-delivered', 'notice', NULL)`,
    );
    expect(await pruneDeliveredOutputs(dataSource, 14)).toBe(1);
    const rows: { output_id: string }[] = await dataSource.query(
      `SELECT output_id FROM delivered_outputs ORDER BY output_id`,
    );
    expect(rows.map((r) => r.output_id)).toEqual(['never-delivered', 'still-redeliverable']);
  });

  it('forgets cleared prompts past the output stream age, never pending or leased ones', async () => {
    const row = (
      id: string,
      status: string,
      outcome: string | null,
      age: string,
      lease: string | null,
    ) =>
      dataSource.query(
        `INSERT INTO prompts (session_id, call_id, prompt_ref, conversation, status, last_seq,
           request, message_ref, outcome, lease_owner, updated_at)
         VALUES ('s', $1, $1, '{}', $2, 5, '{}', '{}', $3, $4, now() - $5::interval)`,
        [id, status, outcome, lease, age],
      );
    await row('oldcleared', 'cleared', 'resolved', '16 days', null);
    await row('oldpending', 'pending', null, '40 days', null);
    await row('oldleased', 'cleared', 'expired', '16 days', 'replica-a');
    await row('newcleared', 'cleared', 'abandoned', '14 days', null);
    expect(await pruneClearedPrompts(dataSource, 14)).toBe(1);
    const rows: { call_id: string }[] = await dataSource.query(
      `SELECT call_id FROM prompts ORDER BY call_id`,
    );
    expect(rows.map((r) => r.call_id)).toEqual(['newcleared', 'oldleased', 'oldpending']);
  });
});
