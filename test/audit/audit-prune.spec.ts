import { appendAudit, type AuditDraft, sealAudit } from '@tollgate/audit';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../apps/session-service/src/migrations';
import { createTestSchema, type TestSchema } from '../support/database';
import { tollgate } from '../support/tollgate-cli';

const draft = (at: string, i: number): AuditDraft => ({
  at,
  kind: 'answer',
  sessionId: 'slack-T1-C1-1.1',
  callId: `call_${i}`,
  who: { id: 'U_ALICE', displayName: 'Alice' },
  via: null,
  argumentsHash: null,
  detail: { option: 'approve_once' },
});

describe('G4 — audit retention (process)', () => {
  let schema: TestSchema;
  let dataSource: DataSource;
  let env: Record<string, string>;

  beforeAll(async () => {
    schema = createTestSchema('audit-prune');
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: MIGRATIONS,
      applicationName: 'audit-prune-test',
      poolSize: 1,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
    env = { DATABASE_URL: schema.url, DATABASE_SCHEMA: schema.schema };
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await schema?.drop();
  });

  it('G4 prune deletes whole days past the retention, keeps their heads, and verify still passes', async () => {
    const now = new Date().toISOString();
    await dataSource.transaction((m) =>
      appendAudit(m, [
        draft('2020-01-01T10:00:00.000Z', 1),
        draft('2020-01-01T11:00:00.000Z', 2),
        draft(now, 3),
      ]),
    );
    expect(await sealAudit(dataSource)).toBe(3);
    const [headBefore] = await dataSource.query<{ head_hash: string }[]>(
      `SELECT head_hash FROM audit_days WHERE day = '2020-01-01'`,
    );

    const refused = await tollgate(['audit', 'prune'], {
      ...env,
      TOLLGATE_AUDIT_RETENTION_DAYS: '30',
    });
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('at least 183') });
    expect(await dataSource.query(`SELECT 1 FROM audit_log`)).toHaveLength(3);

    const pruned = await tollgate(['audit', 'prune'], env);
    expect(pruned).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('pruned 2 entries of 1 days (2020-01-01'),
    });
    expect(await dataSource.query(`SELECT call_id FROM audit_log`)).toEqual([
      { call_id: 'call_3' },
    ]);
    expect(
      await dataSource.query(
        `SELECT head_hash, count, pruned FROM audit_days WHERE day = '2020-01-01'`,
      ),
    ).toEqual([{ head_hash: headBefore?.head_hash, count: 2, pruned: true }]);
    expect(await tollgate(['audit', 'verify'], env)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(
        'audit chain intact: 1 entries over 1 days (1 pruned days keep their heads)',
      ),
    });
    expect((await tollgate(['audit', 'prune'], env)).stdout).toContain(
      'nothing older than 400 days',
    );
  });
});
