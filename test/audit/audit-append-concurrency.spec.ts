import { appendAudit, AuditVerifier, readAudit, readAuditDays } from '@tollgate/audit';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../apps/session-service/src/migrations';
import { createTestSchema, type TestSchema } from '../support/database';

/** Two writers (two pools, as two session-service instances) appending to one day at once. */
describe('G4 — audit appends from two writers (PostgreSQL)', () => {
  let schema: TestSchema;
  const sources: DataSource[] = [];

  beforeAll(async () => {
    schema = createTestSchema('audit-race');
    for (let i = 0; i < 2; i += 1) {
      const source = createDataSource({
        url: schema.url,
        schema: schema.schema,
        migrations: MIGRATIONS,
        applicationName: `audit-race-${i}`,
        poolSize: 4,
      });
      await source.initialize();
      sources.push(source);
    }
    await prepareSchemaAndMigrate(sources[0], pino({ level: 'silent' }));
  });

  afterAll(async () => {
    for (const source of sources) await source.destroy();
    await schema?.drop();
  });

  it('G4 concurrent appends link into one chain per day that verifies', async () => {
    const at = new Date().toISOString();
    const writes = sources.flatMap((source, w) =>
      Array.from({ length: 20 }, (_, i) =>
        source.transaction((m) =>
          appendAudit(m, [
            {
              at,
              kind: 'answer',
              sessionId: `slack-w${w}-${i}`,
              callId: 'call_2_1',
              who: { id: `U${w}` },
              via: null,
              argumentsHash: null,
              detail: { i },
            },
            {
              at,
              kind: 'run',
              sessionId: `slack-w${w}-${i}`,
              callId: 'call_2_1',
              who: null,
              via: null,
              argumentsHash: null,
              detail: {},
            },
          ]),
        ),
      ),
    );
    await Promise.all(writes);
    const source = sources[0];
    const heads = await readAuditDays(source, {});
    expect(heads.map((h) => h.count)).toEqual([80]);
    const verifier = new AuditVerifier(new Map(heads.map((h) => [h.day, h])));
    const runner = source.createQueryRunner();
    try {
      for await (const entry of readAudit(runner, {})) verifier.add(entry);
    } finally {
      await runner.release();
    }
    expect(verifier.finish()).toBeUndefined();
    expect(verifier.verified).toBe(80);
  });
});
