import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import {
  createDataSource,
  prepareSchemaAndMigrate,
  silentPersistenceLogger,
  validateSchemaName,
  type DataSourceConfig,
} from '@tollgate/persistence';
import { uniqueToken } from './unique';

/** The shared test server; every test file works in its own schema inside it. */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestSchema {
  /** A fresh, unused schema name; the code under test creates the schema itself. */
  schema: string;
  url: string;
  /** Drops the schema and everything in it; safe to call when it was never created. */
  drop(): Promise<void>;
}

/**
 * Reserves a schema no other test (or other engineer's run) uses. Call `drop` in
 * `afterAll`, so the shared server does not fill up with schemas.
 */
export function createTestSchema(label: string): TestSchema {
  // The t_ prefix keeps a label starting with a digit valid and marks leftovers as tests'.
  const schema = `t_${uniqueToken(label)}`.slice(0, 63);
  const checked = validateSchemaName(schema);
  if (!checked.ok) throw new Error(`test schema "${schema}" ${checked.reason}`);
  return {
    schema,
    url: TEST_DATABASE_URL,
    drop: async () => {
      await withClient((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    },
  };
}

/** One raw connection to the test database for assertions the code under test must not make. */
export async function withClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_DATABASE_URL, application_name: 'test' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** An initialized data source on the test schema, destroyed when `work` settles. */
export async function withDataSource<T>(
  testSchema: TestSchema,
  config: Partial<DataSourceConfig> & Pick<DataSourceConfig, 'migrations'>,
  work: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  const dataSource = createDataSource({
    url: testSchema.url,
    schema: testSchema.schema,
    applicationName: 'test',
    poolSize: 2,
    ...config,
  });
  await dataSource.initialize();
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

export interface MigratedDataSource {
  readonly schema: TestSchema;
  /** The data source, once the describe block's beforeAll has opened and migrated it. */
  readonly current: () => DataSource;
}

/**
 * For one describe block: a data source on its own test schema, migrated before the block's
 * tests (beforeAll) and destroyed with its schema after them (afterAll).
 */
export function migratedDataSource(
  label: string,
  migrations: DataSourceConfig['migrations'],
  poolSize = 2,
): MigratedDataSource {
  const schema = createTestSchema(label);
  let dataSource: DataSource | undefined;
  beforeAll(async () => {
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations,
      applicationName: `${label}-test`,
      poolSize,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, silentPersistenceLogger);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await schema.drop();
  });
  return {
    schema,
    current: () => {
      if (dataSource === undefined) throw new Error(`${label}: the data source opens in beforeAll`);
      return dataSource;
    },
  };
}
