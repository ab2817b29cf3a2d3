import pino from 'pino';
import { Column, Entity, PrimaryColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import {
  createDataSource,
  PersistenceConfigError,
  ping,
  prepareSchemaAndMigrate,
  silentPersistenceLogger,
} from '@tollgate/persistence';
import {
  createTestSchema,
  TEST_DATABASE_URL,
  withClient,
  withDataSource,
  type TestSchema,
} from '../../support/database';
import { waitFor } from '../../support/wait-for';

@Entity({ name: 'gadgets' })
class Gadget {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  label!: string;
}

class CreateGadgets1732901000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE gadgets (id text PRIMARY KEY, label text NOT NULL)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE gadgets');
  }
}

const silent = silentPersistenceLogger;

describe('createDataSource against PostgreSQL', () => {
  let testSchema: TestSchema;

  beforeAll(() => {
    testSchema = createTestSchema('datasource');
  });

  afterAll(async () => {
    await testSchema.drop();
  });

  it('confines the connection to its schema and names the application', async () => {
    await withDataSource(
      testSchema,
      { migrations: [], applicationName: 'probe-app' },
      async (ds) => {
        const [settings] = await ds.query(
          `SELECT current_setting('search_path') AS search_path,
                current_setting('application_name') AS application_name`,
        );
        expect(settings).toEqual({
          search_path: `"${testSchema.schema}"`,
          application_name: 'probe-app',
        });
      },
    );
  });

  it('S18 every pooled connection has a statement, lock and idle-in-transaction timeout, by default and as configured', async () => {
    const settingsOf = (ds: { query: (sql: string) => Promise<unknown[]> }) =>
      ds.query(
        `SELECT current_setting('statement_timeout') AS statement,
                current_setting('lock_timeout') AS lock,
                current_setting('idle_in_transaction_session_timeout') AS idle`,
      );
    await withDataSource(testSchema, { migrations: [] }, async (ds) => {
      expect(await settingsOf(ds)).toEqual([{ statement: '30s', lock: '10s', idle: '1min' }]);
    });
    await withDataSource(
      testSchema,
      { migrations: [], timeouts: { statementMs: 1500, lockMs: 250, idleInTransactionMs: 4000 } },
      async (ds) => {
        expect(await settingsOf(ds)).toEqual([{ statement: '1500ms', lock: '250ms', idle: '4s' }]);
        // A statement past its limit is ended by the server, not left holding the connection.
        await expect(ds.query('SELECT pg_sleep(3)')).rejects.toThrow(/statement timeout/);
      },
    );
  });

  it('S18 keeps its pooled connections through a lull (five minutes idle, TCP keep-alive, replaced after 30 minutes)', async () => {
    // The pool's own timers, moved by the test's clock: node-postgres's default closed a
    // connection idle for 10 s, so every burst after a lull began on new backends.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      await withDataSource(testSchema, { migrations: [] }, async (ds) => {
        const pool = (
          ds.driver as unknown as {
            master: { totalCount: number; idleCount: number; options: Record<string, unknown> };
          }
        ).master;
        expect(pool.options).toMatchObject({
          idleTimeoutMillis: 300_000,
          keepAlive: true,
          keepAliveInitialDelayMillis: 60_000,
          maxLifetimeSeconds: 1_800,
        });
        // Two at once take both of the test pool's connections.
        await Promise.all([1, 2].map(() => ds.query('SELECT pg_sleep(0.05)')));
        const opened = pool.totalCount;
        expect(opened).toBe(2);
        jest.advanceTimersByTime(60_000);
        expect(pool.totalCount).toBe(opened);
        expect(pool.idleCount).toBe(opened);
        // Past five minutes idle they are closed.
        jest.advanceTimersByTime(241_000);
        expect(pool.totalCount).toBe(0);
      });
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps entities in its schema', async () => {
    await withDataSource(
      testSchema,
      { migrations: [CreateGadgets1732901000000], entities: [Gadget] },
      async (ds) => {
        await prepareSchemaAndMigrate(ds, silent);
        await ds.getRepository(Gadget).save({ id: 'g1', label: 'lever' });

        const rows = await withClient(async (client) => {
          const result = await client.query(`SELECT id, label FROM "${testSchema.schema}".gadgets`);
          return result.rows;
        });
        expect(rows).toEqual([{ id: 'g1', label: 'lever' }]);
        expect(await ds.getRepository(Gadget).findOneBy({ id: 'g1' })).toEqual({
          id: 'g1',
          label: 'lever',
        });
      },
    );
  });

  it('answers ping when connected and says why when not', async () => {
    const ds = createDataSource({
      url: testSchema.url,
      schema: testSchema.schema,
      migrations: [],
      applicationName: 'persistence-spec',
      poolSize: 1,
    });
    expect(await ping(ds)).toEqual({ ok: false, reason: 'not connected' });
    await ds.initialize();
    try {
      expect(await ping(ds)).toMatchObject({ ok: true });

      // With the only pooled connection taken, the ping must give up, not hang.
      const holder = ds.createQueryRunner();
      await holder.connect();
      expect(await ping(ds, 100)).toEqual({ ok: false, reason: 'no answer within 100 ms' });
      await holder.release();
      await waitFor('ping to recover', async () => (await ping(ds)).ok);
    } finally {
      await ds.destroy();
    }
    expect(await ping(ds)).toEqual({ ok: false, reason: 'not connected' });
  });

  it('survives the server dropping an idle pooled connection and says so', async () => {
    const warnings: string[] = [];
    const logger = {
      info: () => undefined,
      warn: (_fields: Record<string, unknown>, message: string) => warnings.push(message),
    };
    const applicationName = `drop-${testSchema.schema}`;
    await withDataSource(testSchema, { migrations: [], applicationName, logger }, async (ds) => {
      await ds.query('SELECT 1');
      await withClient((client) =>
        client.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [applicationName],
        ),
      );
      await waitFor('the pool error to be logged', () => warnings.length > 0);
      expect(warnings).toContain('a pooled database connection failed');
      expect(await ping(ds)).toMatchObject({ ok: true });
    });
  });

  it('accepts a pino logger', async () => {
    const logger = pino({ level: 'silent' });
    await withDataSource(testSchema, { migrations: [], logger }, async (ds) => {
      expect(await prepareSchemaAndMigrate(ds, logger)).toEqual([]);
    });
  });

  it('refuses a URL that is not PostgreSQL without repeating its password', () => {
    const attempt = () =>
      createDataSource({
        url: 'mysql://root:hunter2@db:3306/app',
        schema: testSchema.schema,
        migrations: [],
        applicationName: 'persistence-spec',
      });
    expect(attempt).toThrow(PersistenceConfigError);
    expect(attempt).toThrow(/postgres:\/\//);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('refuses a schema name that is unsafe in SQL', () => {
    expect(() =>
      createDataSource({
        url: TEST_DATABASE_URL,
        schema: 'x"; DROP SCHEMA public; --',
        migrations: [],
        applicationName: 'persistence-spec',
      }),
    ).toThrow(expect.objectContaining({ field: 'schema', code: 'invalid' }) as Error);
  });

  it('does not leak the password when the server cannot be reached', async () => {
    const ds = createDataSource({
      url: 'postgres://postgres:hunter2@127.0.0.1:1/test',
      schema: testSchema.schema,
      migrations: [],
      applicationName: 'persistence-spec',
      connectTimeoutMs: 1_000,
    });
    const failure = await ds.initialize().then(
      () => 'connected',
      (error: unknown) => (error instanceof Error ? `${error.message} ${error.stack}` : 'thrown'),
    );
    expect(failure).not.toContain('hunter2');
    expect(failure).not.toBe('connected');
  });
});
