import { deriveSessionId } from '@tollgate/protocol';
import { alice, freshConversation, response, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { is } from '../support/nats';
import { waitFor } from '../support/wait-for';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { tollgate } from '../support/tollgate-cli';

interface Exported {
  seq: string;
  day: string;
  n: number;
  kind: string;
  sessionId: string;
  callId: string | null;
  who: { id: string; displayName?: string } | null;
  argumentsHash: string | null;
}

/** G4 against the built session service and the built operator CLI, on real PostgreSQL. */
describe('G4 — the audit trail of a journey (session service + CLI)', () => {
  let service: SessionServiceFixture;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('audit');
    env = { DATABASE_URL: service.database.url, DATABASE_SCHEMA: service.database.schema };
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('G4 a gated call requested, clicked and run is exported step by step with who; an edited row fails verify, named', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, '!write_note {"text":"audited"}'));
    await service.outputs.waitForOutputs('the request', is.request('call_2_1'), { sessionId });
    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    await service.outputs.waitForOutputs('the reply', is.text('write_note'), { sessionId });

    // The decisions committed their entries unchained; the leader's sealer links them on its
    // own (every TOLLGATE_AUDIT_SEAL_MS), before any CLI asks.
    await waitFor('the journey sealed by the leader', () =>
      withClient(async (client) => {
        const { rows } = await client.query<{ sealed: number; pending: number }>(
          `SELECT count(*) FILTER (WHERE hash IS NOT NULL)::int AS sealed,
                  count(*) FILTER (WHERE hash IS NULL)::int AS pending
           FROM "${service.database.schema}".audit_log WHERE session_id = $1`,
          [sessionId],
        );
        return rows[0]?.sealed === 6 && rows[0].pending === 0;
      }),
    );

    const today = new Date().toISOString().slice(0, 10);
    const exported = await tollgate(['audit', 'export', '--since', today], env);
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const entries = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Exported)
      .filter((e) => e.sessionId === sessionId);
    expect(entries.map((e) => [e.kind, e.callId, e.who?.id ?? null])).toEqual([
      ['message', null, alice.id],
      ['call_proposed', 'call_2_1', null],
      ['request', 'call_2_1', alice.id],
      ['answer', 'call_2_1', alice.id],
      ['run', 'call_2_1', null],
      ['result', 'call_2_1', null],
    ]);
    expect(entries[1]?.argumentsHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    // In chain order: each day's positions only grow.
    const positions = entries.map((e) => e.n);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);

    const csv = await tollgate(['audit', 'export', '--since', today, '--format', 'csv'], env);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split('\n')[0]).toMatch(/^seq,day,n,at,kind,session_id,call_id,who_id/);
    expect(csv.stdout).toContain(`,answer,${sessionId},call_2_1,${alice.id},`);

    expect(await tollgate(['audit', 'verify'], env)).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^audit chain intact: \d+ entries over 1 days/),
    });

    const answer = entries[3];
    await withClient((client) =>
      client.query(
        `UPDATE "${service.database.schema}".audit_log
         SET who = '{"id":"U_MALLORY","displayName":"Mallory"}' WHERE seq = $1`,
        [answer.seq],
      ),
    );
    const verified = await tollgate(['audit', 'verify', '--since', today], env);
    expect(verified.code).toBe(3);
    expect(verified.stderr).toContain(
      `audit chain broken at seq ${answer.seq}, day ${answer.day}, entry ${answer.n}: its content does not match its hash`,
    );
  });

  it('G4 export refuses a malformed date and a reversed range without touching anything', async () => {
    const bad = await tollgate(['audit', 'export', '--since', '2026-13-01'], env);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('not a calendar date') });
    const reversed = await tollgate(
      ['audit', 'export', '--since', '2026-12-02', '--until', '2026-12-01'],
      env,
    );
    expect(reversed).toMatchObject({ code: 2, stderr: expect.stringContaining('is after') });
    const missing = await tollgate(['audit', 'export'], env);
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--since is required'),
    });
  });
});
