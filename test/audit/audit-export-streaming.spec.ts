import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../apps/session-service/src/migrations';
import { createTestSchema, type TestSchema } from '../support/database';
import { tollgateMeasured } from '../support/tollgate-cli';

const SMALL = 10_000;
const LARGE = 100_000;
/**
 * Both runs get the same small heap: an old space too small for 100,000 entries held at once
 * (a CLI that buffered would die: each entry costs well over 1 KB as rows and objects, so
 * 100,000 need over 100 MB), and a young generation that cannot grow with the allocation rate
 * (left to itself, V8 widens it by some 30 MB on a long run, which would look like growth with
 * N). The export's live heap is 17 MB after a full GC at 10,000 entries and at 400,000 alike;
 * it runs to the end at 20 MB, so 32 leaves it some 15 MB for collecting late under load. The
 * 31-48 MB once seen live here was stdout's queue: node writes to a pipe asynchronously, and an
 * export that did not wait for 'drain' held every line its reader had not taken (40 MB at
 * 100,000 entries for a reader taking 4 MB/s). The reader stalls to make that certain: an
 * export that ignores backpressure queues its whole 49 MB output and dies at 32.
 */
const HEAP_CAP = ['--max-old-space-size=32', '--max-semi-space-size=1'];

/**
 * G4: `audit export` reads through a server-side cursor and writes no faster than its reader
 * takes, so its memory does not grow with the number of entries. The entries are generated
 * in SQL (their hashes are not a valid chain: export does not check them, verify does).
 */
describe('G4 — audit export streams (process)', () => {
  let schema: TestSchema;
  let dataSource: DataSource;
  let env: Record<string, string>;

  async function fill(day: string, count: number): Promise<void> {
    await dataSource.query(`INSERT INTO audit_days (day, head_hash, count) VALUES ($1, $2, $3)`, [
      day,
      'f'.repeat(64),
      count,
    ]);
    await dataSource.query(
      `INSERT INTO audit_log
         (day, n, at, kind, session_id, call_id, who, via, arguments_hash, detail, prev_hash, hash)
       SELECT $1::date, i, $1::date + i * interval '1 ms', 'answer', 'slack-T1-C1-' || (i % 500),
              'call_' || i, '{"id":"U_ALICE","displayName":"Alice"}', 'click',
              'sha256:' || md5(i::text) || md5(i::text), jsonb_build_object('option', 'approve_once', 'seq', i),
              md5((i - 1)::text) || md5((i - 1)::text), md5(i::text) || md5(i::text)
       FROM generate_series(1, $2::int) AS i`,
      [day, count],
    );
  }

  beforeAll(async () => {
    schema = createTestSchema('audit-stream');
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: MIGRATIONS,
      applicationName: 'audit-stream-test',
      poolSize: 1,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
    await fill('2026-01-01', SMALL);
    await fill('2026-01-02', LARGE);
    env = { DATABASE_URL: schema.url, DATABASE_SCHEMA: schema.schema };
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await schema?.drop();
  });

  it('G4 exporting 100,000 entries takes no more memory than exporting 10,000', async () => {
    const small = await tollgateMeasured(
      ['audit', 'export', '--since', '2026-01-01', '--until', '2026-01-01'],
      env,
      { nodeFlags: HEAP_CAP, readerStalls: true },
    );
    const large = await tollgateMeasured(
      ['audit', 'export', '--since', '2026-01-02', '--until', '2026-01-02'],
      env,
      { nodeFlags: HEAP_CAP, readerStalls: true },
    );
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `audit export peak RSS: ${SMALL} entries ${mb(small.peakRssBytes)} MB, ` +
        `${LARGE} entries ${mb(large.peakRssBytes)} MB`,
    );
    expect(small).toMatchObject({ code: 0, lines: SMALL, stderr: '' });
    expect(large).toMatchObject({ code: 0, lines: LARGE, stderr: '' });
    expect(small.peakRssBytes).toBeGreaterThan(0);
    // Ten times the entries in a heap that could not hold them: it streamed. The bound is
    // generous (a busy machine collects later, up to the cap) but far below ten times.
    expect(large.peakRssBytes).toBeLessThan(small.peakRssBytes * 1.5);
  });
});
