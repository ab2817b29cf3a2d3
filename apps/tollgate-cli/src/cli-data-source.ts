import {
  createDataSource,
  type MigrationClass,
  validateDatabaseUrl,
  validateSchemaName,
} from '@tollgate/persistence';
import type { DataSource } from 'typeorm';
import { UsageError } from './cli-command';

/** A service's schema for an operator command, not yet connected. */
export interface CliDataSource {
  readonly dataSource: DataSource;
  readonly schema: string;
  /** The URL with its password hidden, for every message that names it. */
  readonly redactedUrl: string;
}

/**
 * `DATABASE_URL` and `DATABASE_SCHEMA` checked as the services check them, both problems told
 * at once; one connection, named `tollgate-cli` in pg_stat_activity. Whether to migrate is the
 * caller's choice, so the migrations are only those it would run or report pending.
 */
export function cliDataSource(
  env: NodeJS.ProcessEnv,
  defaultSchema: string,
  migrations: readonly MigrationClass[],
): CliDataSource {
  const url = validateDatabaseUrl(env.DATABASE_URL);
  const schema = validateSchemaName(env.DATABASE_SCHEMA || defaultSchema);
  const problems = [
    ...(url.ok ? [] : [`DATABASE_URL: ${url.reason}`]),
    ...(schema.ok ? [] : [`DATABASE_SCHEMA: ${schema.reason}`]),
  ];
  if (!url.ok || !schema.ok) throw new UsageError(`invalid configuration: ${problems.join('; ')}`);
  const dataSource = createDataSource({
    url: url.url,
    schema: schema.schema,
    migrations,
    applicationName: 'tollgate-cli',
    poolSize: 1,
  });
  return { dataSource, schema: schema.schema, redactedUrl: url.redacted };
}
