import { APPROVAL_API_MIGRATIONS, ApprovalClientsRepository } from '@tollgate/approval-clients';
import { prepareSchemaAndMigrate, silentPersistenceLogger } from '@tollgate/persistence';
import { CliFailure } from '../cli-command';
import { cliDataSource } from '../cli-data-source';

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
  const { dataSource, schema, redactedUrl } = cliDataSource(
    env,
    DEFAULT_SCHEMA,
    APPROVAL_API_MIGRATIONS,
  );
  try {
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, silentPersistenceLogger);
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    const text = error instanceof Error ? error.message : String(error);
    throw new CliFailure(
      `cannot open schema ${schema} at ${redactedUrl}: ${text.replace(/postgres(?:ql)?:\/\/\S+/g, redactedUrl)}`,
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
