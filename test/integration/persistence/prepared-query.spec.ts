import { QueryFailedError } from 'typeorm';
import { pooledQuery, queryPrepared } from '@tollgate/persistence';
import {
  createTestSchema,
  withClient,
  withDataSource,
  type TestSchema,
} from '../../support/database';

/**
 * The hot statements run as named prepared statements (queryPrepared, pooledQuery's name):
 * on a transaction's own connection and on each pooled one, parsed and planned once there.
 * Checked in PostgreSQL's own view of the connection's prepared statements, with the errors
 * callers read (a unique violation is still a QueryFailedError with the driver's code).
 */
describe('D6 prepared hot statements against PostgreSQL', () => {
  let testSchema: TestSchema;
  const INSERT = 'INSERT INTO things (id) SELECT * FROM unnest($1::text[])';
  const PREPARED = `SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'probe_%'`;

  beforeAll(async () => {
    testSchema = createTestSchema('prepared');
    await withClient((client) => client.query(`CREATE SCHEMA "${testSchema.schema}"`));
  });

  afterAll(async () => {
    await testSchema.drop();
  });

  it("prepares by name on the transaction's connection and keeps TypeORM's errors", async () => {
    await withDataSource(testSchema, { migrations: [] }, async (ds) => {
      await ds.query('CREATE TABLE things (id text PRIMARY KEY)');
      await ds.transaction(async (manager) => {
        await queryPrepared(manager, 'probe_insert', INSERT, [['a', 'b']]);
        await queryPrepared(manager, 'probe_insert', INSERT, [['c']]);
        // The same connection: its prepared statements are PostgreSQL's own record of them.
        expect(await manager.query(PREPARED)).toEqual([
          { name: 'probe_insert', statement: INSERT },
        ]);
      });
      expect(await ds.query('SELECT id FROM things ORDER BY id')).toEqual([
        { id: 'a' },
        { id: 'b' },
        { id: 'c' },
      ]);
      const duplicate = ds.transaction((manager) =>
        queryPrepared(manager, 'probe_insert', INSERT, [['a']]),
      );
      await expect(duplicate).rejects.toBeInstanceOf(QueryFailedError);
      await expect(duplicate).rejects.toMatchObject({ driverError: { code: '23505' } });
    });
  });

  it('prepares on a pooled connection through pooledQuery, and answers rows', async () => {
    await withDataSource(testSchema, { migrations: [] }, async (ds) => {
      const query = pooledQuery(ds);
      const select = 'SELECT $1::int + 1 AS n';
      expect(await query(select, [1], 'probe_add')).toEqual([{ n: 2 }]);
      expect(await query(select, [41], 'probe_add')).toEqual([{ n: 42 }]);
      // Held in a transaction so the check reads the connection the statement was prepared
      // on: with one statement before it, the pool hands back the idle connection it used.
      const seen = await ds.transaction((manager) => manager.query(PREPARED));
      const onOther = await query(PREPARED, []);
      expect([...seen, ...onOther]).toContainEqual({ name: 'probe_add', statement: select });
    });
  });

  it('runs as a plain statement where there is no connection to prepare on', async () => {
    const calls: unknown[][] = [];
    const db = { query: async (...args: unknown[]) => (calls.push(args), [{ ok: true }]) };
    expect(await queryPrepared(db, 'probe_plain', 'SELECT 1', [])).toEqual([{ ok: true }]);
    expect(calls).toEqual([['SELECT 1', []]]);
  });

  it('refuses a name PostgreSQL would cut short into another statement', async () => {
    await withDataSource(testSchema, { migrations: [] }, async (ds) => {
      await expect(
        ds.transaction((manager) => queryPrepared(manager, 'p'.repeat(64), 'SELECT 1', [])),
      ).rejects.toThrow(/1 to 63 characters/);
      await expect(pooledQuery(ds)('SELECT 1', [], '')).rejects.toThrow(/1 to 63 characters/);
    });
  });
});
