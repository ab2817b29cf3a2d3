import { MigrationExecutor, type DataSource } from 'typeorm';

/**
 * Names of the data source's migrations not yet recorded in its schema, oldest first.
 * Read-only: unlike TypeORM's showMigrations it creates no table, so a readiness probe
 * can call it against a schema that does not exist yet.
 */
export async function pendingMigrations(dataSource: DataSource): Promise<readonly string[]> {
  const pending = await new MigrationExecutor(dataSource).getPendingMigrations();
  return pending.map((migration) => migration.name);
}

/** True when every migration the data source knows has been applied. */
export async function migrationsApplied(dataSource: DataSource): Promise<boolean> {
  return (await pendingMigrations(dataSource)).length === 0;
}
