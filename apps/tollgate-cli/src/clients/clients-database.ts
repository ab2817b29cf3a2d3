import { APPROVAL_API_MIGRATIONS, ApprovalClientsRepository } from '@tollgate/approval-clients';
import {
  createDataSource,
  prepareSchemaAndMigrate,
  silentPersistenceLogger,
  validateDatabaseUrl,
  validateSchemaName,
} from '@tollgate/persistence';
import { CliFailure, UsageError } from '../cli-command';

export interface ClientsDatabase {
  readonly clients: ApprovalClientsRepository;
  close(): Promise<void>;
}

const DEFAULT_SCHEMA = 'approval_api';

/**
 * The approval-api's schema from `DATABASE_URL` and `DATABASE_SCHEMA` (default approval_api).
 * Unlike the session commands this one migrates: a deployment creates its first client
 * before the approval-api ever starts, and the migrations run under the same advisory lock
 * the service takes, so the two never race.
 */
export async function openClientsDatabase(env: NodeJS.ProcessEnv): Promise<ClientsDatabase> {
  const url = validateDatabaseUrl(env.DATABASE_URL);
  const schema = validateSchemaName(env.DATABASE_SCHEMA || DEFAULT_SCHEMA);
  const problems = [
    ...(url.ok ? [] : [`DATABASE_URL: ${url.reason}`]),
    ...(schema.ok ? [] : [`DATABASE_SCHEMA: ${schema.reason}`]),
  ];
  if (!url.ok || !schema.ok) throw new UsageError(`invalid configuration: ${problems.join('; ')}`);
  const dataSource = createDataSource({
    url: url.url,
    schema: schema.schema,
    migrations: APPROVAL_API_MIGRATIONS,
    applicationName: 'tollgate-cli',
    poolSize: 1,
  });
  try {
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, silentPersistenceLogger);
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    const text = error instanceof Error ? error.message : String(error);
    throw new CliFailure(
      `cannot open schema ${schema.schema} at ${url.redacted}: ${text.replace(/postgres(?:ql)?:\/\/\S+/g, url.redacted)}`,
    );
  }
  return {
    clients: new ApprovalClientsRepository(async () => dataSource),
    close: () => dataSource.destroy(),
  };
}

/** Runs `work` on the clients table and always closes the connection. */
export async function withClients<T>(
  env: NodeJS.ProcessEnv,
  work: (clients: ApprovalClientsRepository) => Promise<T>,
): Promise<T> {
  const database = await openClientsDatabase(env);
  try {
    return await work(database.clients);
  } finally {
    await database.close();
  }
}
