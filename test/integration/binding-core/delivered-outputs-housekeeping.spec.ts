import { BINDING_CORE_MIGRATIONS, pruneDeliveredOutputs } from '@tollgate/binding-core';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { createTestSchema } from '../../support/database';

describe('delivered outputs housekeeping', () => {
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
});
