import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import {
  createDataSource,
  MIGRATION_LOCK_CLASS_ID,
  migrationsApplied,
  pendingMigrations,
  prepareSchemaAndMigrate,
  type MigrationClass,
  silentPersistenceLogger,
  type PersistenceLogger,
} from '@tollgate/persistence';
import { createTestSchema, withClient, type TestSchema } from '../../support/database';
import { waitFor } from '../../support/wait-for';

class CreateWidgets1732900000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // Unqualified on purpose: search_path must put it in the service's schema. No
    // IF NOT EXISTS, so a second run would fail loudly.
    await queryRunner.query('CREATE TABLE widgets (id text PRIMARY KEY, name text NOT NULL)');
    await queryRunner.query(`INSERT INTO widgets VALUES ('w1', 'first')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE widgets');
  }
}

class AddWidgetColour1732900100000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE widgets ADD COLUMN colour text NOT NULL DEFAULT 'red'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE widgets DROP COLUMN colour');
  }
}

class BrokenMigration1732900200000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE half_done (id int)');
    await queryRunner.query('SELECT * FROM no_such_table');
  }

  async down(): Promise<void> {}
}

function recorder(): PersistenceLogger & { messages: string[] } {
  const messages: string[] = [];
  return {
    messages,
    info: (_fields, message) => messages.push(message),
    warn: (_fields, message) => messages.push(message),
  };
}

const silent = silentPersistenceLogger;

describe('prepareSchemaAndMigrate against PostgreSQL', () => {
  let testSchema: TestSchema;
  const open: DataSource[] = [];

  async function connect(migrations: MigrationClass[], poolSize = 2): Promise<DataSource> {
    const dataSource = createDataSource({
      url: testSchema.url,
      schema: testSchema.schema,
      migrations,
      applicationName: 'persistence-spec',
      poolSize,
    });
    await dataSource.initialize();
    open.push(dataSource);
    return dataSource;
  }

  async function tablesInSchema(): Promise<string[]> {
    return withClient(async (client) => {
      const { rows } = await client.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
        [testSchema.schema],
      );
      return rows.map((row) => row.table_name);
    });
  }

  async function recordedMigrations(): Promise<string[]> {
    return withClient(async (client) => {
      const { rows } = await client.query<{ name: string }>(
        `SELECT name FROM "${testSchema.schema}".migrations ORDER BY id`,
      );
      return rows.map((row) => row.name);
    });
  }

  beforeEach(() => {
    testSchema = createTestSchema('persist');
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((dataSource) => dataSource.destroy()));
    await testSchema.drop();
  });

  it('creates the schema, applies the migration inside it and reports readiness', async () => {
    const dataSource = await connect([CreateWidgets1732900000000]);
    expect(await migrationsApplied(dataSource)).toBe(false);
    expect(await pendingMigrations(dataSource)).toEqual(['CreateWidgets1732900000000']);
    expect(await tablesInSchema()).toEqual([]);

    const applied = await prepareSchemaAndMigrate(dataSource, silent);

    expect(applied).toEqual(['CreateWidgets1732900000000']);
    expect(await tablesInSchema()).toEqual(['migrations', 'widgets']);
    expect(await migrationsApplied(dataSource)).toBe(true);
    expect(await pendingMigrations(dataSource)).toEqual([]);
  });

  it('changes nothing when run again', async () => {
    const dataSource = await connect([CreateWidgets1732900000000]);
    await prepareSchemaAndMigrate(dataSource, silent);
    await dataSource.query(`UPDATE widgets SET name = 'renamed'`);

    const logger = recorder();
    expect(await prepareSchemaAndMigrate(dataSource, logger)).toEqual([]);

    expect(logger.messages).toEqual(['schema is up to date']);
    expect(await recordedMigrations()).toEqual(['CreateWidgets1732900000000']);
    expect(await dataSource.query('SELECT id, name FROM widgets')).toEqual([
      { id: 'w1', name: 'renamed' },
    ]);
  });

  it('applies only the migrations a newer release adds', async () => {
    await prepareSchemaAndMigrate(await connect([CreateWidgets1732900000000]), silent);
    const upgraded = await connect([CreateWidgets1732900000000, AddWidgetColour1732900100000]);
    expect(await pendingMigrations(upgraded)).toEqual(['AddWidgetColour1732900100000']);

    expect(await prepareSchemaAndMigrate(upgraded, silent)).toEqual([
      'AddWidgetColour1732900100000',
    ]);
    expect(await upgraded.query('SELECT id, colour FROM widgets')).toEqual([
      { id: 'w1', colour: 'red' },
    ]);
  });

  it('lets two processes start at once: both succeed and the migration runs once', async () => {
    // Separate data sources, as two replicas would have; pool size 1 also proves the lock,
    // the DDL and the migrations share one connection.
    const first = await connect([CreateWidgets1732900000000], 1);
    const second = await connect([CreateWidgets1732900000000], 1);
    const firstLog = recorder();
    const secondLog = recorder();

    // Hold the schema's lock so both calls are certainly waiting at the same moment.
    const gate = await withClient(async (client) => {
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [
        MIGRATION_LOCK_CLASS_ID,
        testSchema.schema,
      ]);
      const runs = Promise.all([
        prepareSchemaAndMigrate(first, firstLog),
        prepareSchemaAndMigrate(second, secondLog),
      ]);
      await waitFor('both callers to wait for the migration lock', () =>
        [firstLog, secondLog].every((log) =>
          log.messages.some((message) => message.includes('waiting')),
        ),
      );
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [
        MIGRATION_LOCK_CLASS_ID,
        testSchema.schema,
      ]);
      return runs;
    });

    expect(gate.flat()).toEqual(['CreateWidgets1732900000000']);
    expect(await recordedMigrations()).toEqual(['CreateWidgets1732900000000']);
    expect(await first.query('SELECT id FROM widgets')).toEqual([{ id: 'w1' }]);
    expect(await migrationsApplied(second)).toBe(true);
  });

  it('rolls a failing migration back, records nothing and releases the lock', async () => {
    const dataSource = await connect([CreateWidgets1732900000000, BrokenMigration1732900200000]);

    await expect(prepareSchemaAndMigrate(dataSource, silent)).rejects.toThrow(/no_such_table/);

    expect(await recordedMigrations()).toEqual(['CreateWidgets1732900000000']);
    expect(await tablesInSchema()).toEqual(['migrations', 'widgets']);
    expect(await pendingMigrations(dataSource)).toEqual(['BrokenMigration1732900200000']);
    const [lock] = await withClient(async (client) => {
      const { rows } = await client.query<{ free: boolean }>(
        'SELECT pg_try_advisory_lock($1, hashtext($2)) AS free',
        [MIGRATION_LOCK_CLASS_ID, testSchema.schema],
      );
      return rows;
    });
    expect(lock).toEqual({ free: true });
  });

  it('uses a schema an operator created in advance', async () => {
    await withClient((client) => client.query(`CREATE SCHEMA "${testSchema.schema}"`));
    const dataSource = await connect([CreateWidgets1732900000000]);

    expect(await prepareSchemaAndMigrate(dataSource, silent)).toEqual([
      'CreateWidgets1732900000000',
    ]);
  });
});
