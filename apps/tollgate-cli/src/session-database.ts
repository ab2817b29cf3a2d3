import { pendingMigrations, redactDatabaseUrl } from '@tollgate/persistence';
import type { DataSource } from 'typeorm';
import { SESSION_SCHEMA_MIGRATIONS, ToolGrantsRepository } from '@tollgate/session-read-model';
import { CliFailure } from './cli-command';
import { cliDataSource } from './cli-data-source';

/** The session-service's schema, opened for an operator command. */
export interface SessionDatabase {
  readonly grants: ToolGrantsRepository;
  /** For read-only reports; its search_path is the session-service's schema. */
  readonly dataSource: DataSource;
  readonly schema: string;
  close(): Promise<void>;
}

const DEFAULT_SCHEMA = 'session_service';

/**
 * Connects to the session-service's schema from `DATABASE_URL` and `DATABASE_SCHEMA`, checked
 * as the services check them. The CLI never migrates: a schema behind the code it was built
 * with is reported, since its tables may not have the columns this build reads and writes.
 */
export async function openSessionDatabase(env: NodeJS.ProcessEnv): Promise<SessionDatabase> {
  const { dataSource, schema, redactedUrl } = cliDataSource(
    env,
    DEFAULT_SCHEMA,
    SESSION_SCHEMA_MIGRATIONS,
  );
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new CliFailure(`cannot reach the database at ${redactedUrl}: ${messageOf(error)}`);
  }
  try {
    await requireMigrated(dataSource, schema);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return {
    grants: new ToolGrantsRepository(async () => dataSource),
    dataSource,
    schema,
    close: () => dataSource.destroy(),
  };
}

async function requireMigrated(dataSource: DataSource, schema: string): Promise<void> {
  let pending: readonly string[];
  try {
    pending = await pendingMigrations(dataSource);
  } catch (error) {
    throw new CliFailure(`cannot read the migrations of schema ${schema}: ${messageOf(error)}`);
  }
  if (pending.length > 0) {
    throw new CliFailure(
      `schema ${schema} is not migrated (pending: ${pending.join(', ')}); ` +
        'start the session-service or run `npm run migrate -- session-service` first',
    );
  }
}

function messageOf(error: unknown): string {
  // A driver error may quote the connection string it was given.
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/postgres(?:ql)?:\/\/\S+/g, (found) => redactDatabaseUrl(found));
}
