import { MigrationExecutor, type DataSource, type QueryRunner } from 'typeorm';
import type { PersistenceLogger } from './persistence.logger';
import { withSchemaMigrationLock } from './schema-migration.lock';
import { validateSchemaName } from './schema-name.validator';
import { PersistenceConfigError } from './persistence-config.error';

/**
 * Creates the data source's schema if it is missing and applies pending migrations.
 * Replicas may start together: the first to take the schema's advisory lock migrates,
 * the others wait for it and then find nothing pending. Returns the names applied here.
 */
export async function prepareSchemaAndMigrate(
  dataSource: DataSource,
  logger: PersistenceLogger,
): Promise<readonly string[]> {
  const schema = schemaOf(dataSource);
  const queryRunner = dataSource.createQueryRunner();
  try {
    // Lock, DDL and migrations share one connection: a pool of size 1 cannot deadlock,
    // and the lock is released on the connection that took it.
    await queryRunner.connect();
    return await withSchemaMigrationLock(queryRunner, schema, logger, async () => {
      await createSchemaIfMissing(queryRunner, schema);
      const executor = new MigrationExecutor(dataSource, queryRunner);
      executor.transaction = dataSource.options.migrationsTransactionMode ?? 'each';
      const applied = await executor.executePendingMigrations();
      const names = applied.map((migration) => migration.name);
      if (names.length > 0) logger.info({ schema, migrations: names }, 'applied migrations');
      else logger.info({ schema }, 'schema is up to date');
      return names;
    });
  } finally {
    await queryRunner.release();
  }
}

// Checked first and created only when absent: CREATE SCHEMA checks the CREATE right on
// the database even with IF NOT EXISTS, and an operator may have created the schema for
// a role that lacks that right. Running under the lock also avoids the unique violation
// two concurrent CREATE SCHEMA IF NOT EXISTS can raise.
async function createSchemaIfMissing(queryRunner: QueryRunner, schema: string): Promise<void> {
  const found = (await queryRunner.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
    schema,
  ])) as unknown[];
  if (found.length === 0) await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
}

function schemaOf(dataSource: DataSource): string {
  const configured = (dataSource.options as { schema?: string }).schema;
  const schema = validateSchemaName(configured);
  if (!schema.ok) throw new PersistenceConfigError('schema', schema.code, schema.reason);
  return schema.schema;
}
