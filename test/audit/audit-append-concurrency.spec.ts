import {
  appendAudit,
  type AuditDraft,
  AuditVerifier,
  readAudit,
  readAuditDays,
  sealAudit,
  unsealedAuditCount,
} from '@tollgate/audit';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../apps/session-service/src/migrations';
import { createTestSchema, type TestSchema } from '../support/database';

const entry = (w: number, i: number, kind: 'answer' | 'run', at: string): AuditDraft => ({
  at,
  kind,
  sessionId: `slack-w${w}-${i}`,
  callId: 'call_2_1',
  who: kind === 'answer' ? { id: `U${w}` } : null,
  via: null,
  argumentsHash: null,
  detail: { i },
});

/**
 * Two writers and two sealers (two pools, as two session-service instances, one of them an
 * operator's CLI) on one day at once: decisions insert unchained, sealers link afterwards.
 */
describe('G4 — audit appends and sealing from two instances (PostgreSQL)', () => {
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

  async function verify(source: DataSource) {
    const heads = await readAuditDays(source, {});
    const verifier = new AuditVerifier(new Map(heads.map((h) => [h.day, h])));
    const runner = source.createQueryRunner();
    const order: string[] = [];
    try {
      for await (const e of readAudit(runner, {})) {
        verifier.add(e);
        order.push(`${e.sessionId}:${e.kind}`);
      }
    } finally {
      await runner.release();
    }
    return { heads, broken: verifier.finish(), verified: verifier.verified, order };
  }

  it('G4 concurrent appends sealed by two sealers at once link into one chain per day that verifies, each decision in its order', async () => {
    const at = new Date().toISOString();
    let writing = true;
    // Both instances seal while the writes land, as a leader and an operator's verify would.
    const sealers = sources.map(async (source) => {
      let sealed = 0;
      while (writing) sealed += await sealAudit(source, 7);
      return sealed;
    });
    const writes = sources.flatMap((source, w) =>
      Array.from({ length: 20 }, (_, i) =>
        source.transaction((m) =>
          appendAudit(m, [entry(w, i, 'answer', at), entry(w, i, 'run', at)]),
        ),
      ),
    );
    await Promise.all(writes);
    writing = false;
    const sealedWhileWriting = (await Promise.all(sealers)).reduce((a, b) => a + b, 0);
    const sealedAfter = await sealAudit(sources[1]);
    expect(sealedWhileWriting + sealedAfter).toBe(80);
    expect(await unsealedAuditCount(sources[0])).toBe(0);

    const { heads, broken, verified, order } = await verify(sources[0]);
    expect(heads.map((h) => h.count)).toEqual([80]);
    expect(broken).toBeUndefined();
    expect(verified).toBe(80);
    // A decision's entries were inserted in one statement: its answer comes before its run.
    for (let w = 0; w < 2; w += 1) {
      for (let i = 0; i < 20; i += 1) {
        expect(order.indexOf(`slack-w${w}-${i}:answer`)).toBeLessThan(
          order.indexOf(`slack-w${w}-${i}:run`),
        );
      }
    }
  });

  it('G4 entries committed by an instance that died before sealing are linked by the next one, after the chain so far', async () => {
    const at = new Date().toISOString();
    // Committed, never sealed: the instance "crashes" here.
    await sources[0].transaction((m) =>
      appendAudit(m, [entry(7, 1, 'answer', at), entry(7, 1, 'run', at)]),
    );
    expect(await unsealedAuditCount(sources[1])).toBe(2);
    const before = await verify(sources[1]);
    // Pending entries are neither listed nor a break: the chain so far still verifies.
    expect(before.broken).toBeUndefined();
    expect(before.order).not.toContain('slack-w7-1:answer');

    // The next leader's first tick.
    expect(await sealAudit(sources[1])).toBe(2);
    const after = await verify(sources[1]);
    expect(after.broken).toBeUndefined();
    expect(after.verified).toBe(before.verified + 2);
    expect(after.order.slice(-2)).toEqual(['slack-w7-1:answer', 'slack-w7-1:run']);
  });

  it('G4 a sealed row edited afterwards still fails verification, named', async () => {
    const [row] = await sources[0].query<{ seq: string; n: number }[]>(
      `SELECT seq::text AS seq, n FROM audit_log WHERE kind = 'answer' ORDER BY seq LIMIT 1`,
    );
    await sources[0].query(`UPDATE audit_log SET who = '{"id":"U_MALLORY"}' WHERE seq = $1`, [
      row?.seq,
    ]);
    const { broken } = await verify(sources[0]);
    expect(broken).toMatchObject({
      seq: row?.seq,
      n: row?.n,
      problem: expect.stringContaining('edited'),
    });
  });
});
