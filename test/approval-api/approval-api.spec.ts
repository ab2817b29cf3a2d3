import { argumentsHashOf, deriveAgentSessionId } from '@tollgate/protocol';
import { ApprovalApiSystem, approvedBy, deniedBy } from '../support/approval-api.fixture';
import { waitFor } from '../support/wait-for';

/**
 * A1: the approval API of docs/protocol.md against two built approval-api replicas on real
 * NATS JetStream and PostgreSQL. Decisions are published on the decision stream as the
 * session service publishes them.
 */
describe('A1 — the approval API (process, two replicas)', () => {
  let system: ApprovalApiSystem;
  let key: string;
  let clientId: string;
  let otherKey: string;

  beforeAll(async () => {
    system = await ApprovalApiSystem.start('a1api', { replicas: 2 });
    const made = await system.createClient({ name: 'deploy bot' });
    key = made.key;
    clientId = made.client.id;
    otherKey = (await system.createClient({ name: 'other bot' })).key;
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  const body = (args: Record<string, unknown> = { command: 'rm -rf build' }) => ({
    tool: 'Bash',
    arguments: args,
    summary: 'Clean the build folder',
    agent: { name: 'claude-code', session: 's-1' },
  });

  async function pending(args?: Record<string, unknown>) {
    const created = await system.create(key, body(args));
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    const request = await system.publishedRequest(id);
    return { id, request };
  }

  it('A1 create answers 202 with the pending approval once its ApprovalRequest is on the command stream', async () => {
    const created = await system.create(key, body());
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      status: 'pending',
      tool: 'Bash',
      argumentsHash: argumentsHashOf({ command: 'rm -rf build' }),
      agent: { name: 'claude-code', session: 's-1' },
      route: { platform: 'slack', workspace: 'T1', channel: 'C1', thread: '' },
      decidedAt: null,
      decision: null,
      redeemedAt: null,
    });
    expect(created.body.id).toMatch(/^apr_[0-9a-z]{26}$/);
    const request = await system.publishedRequest(created.body.id as string);
    expect(request).toMatchObject({
      type: 'ApprovalRequest',
      id: `api:${String(created.body.id)}`,
      sessionId: deriveAgentSessionId('slack', clientId, 's-1'),
      clientId,
      clientName: 'deploy bot',
      tool: 'Bash',
      arguments: { command: 'rm -rf build' },
      summary: 'Clean the build folder',
      caller: { name: 'claude-code', session: 's-1' },
      approvers: [{ id: 'U_ALICE' }, { id: 'U_BOB' }],
      options: ['approve_once', 'approve_session', 'approve_always', 'deny'],
      conversation: { platform: 'slack', workspaceId: 'T1', channelId: 'C1', threadId: '' },
    });
  });

  it('A1 refuses malformed requests with 400 and a reason code, oversized ones with 413', async () => {
    const cases: [unknown, string][] = [
      [{ arguments: {} }, 'invalid_tool'],
      [{ tool: 'Bash', arguments: [] }, 'invalid_arguments'],
      [{ tool: 'Bash', arguments: { a: 1 }, options: ['maybe'] }, 'invalid_options'],
      [{ tool: 'Bash', arguments: { a: 1 }, deadline: 'soon' }, 'invalid_deadline'],
      [{ tool: 'Bash', arguments: { a: 1 }, onDeadline: 'deny' }, 'invalid_on_deadline'],
      [{ tool: 'Bash', arguments: { a: 1 }, approvers: [] }, 'invalid_approvers'],
      [{ tool: 'Bash', arguments: { a: 1 }, surprise: true }, 'unknown_field'],
    ];
    for (const [request, code] of cases) {
      const answer = await system.create(key, request);
      expect({ code, status: answer.status, error: answer.body.error }).toEqual({
        code,
        status: 400,
        error: code,
      });
      expect(typeof answer.body.message).toBe('string');
    }
    const noKey = await system.call('POST', '/v1/approvals', { key, body: body() });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error).toBe('idempotency_key_required');
    const tooLong = await system.create(key, body(), 'k'.repeat(201));
    expect(tooLong.body.error).toBe('idempotency_key_required');
    // Each parameter is refused by its own pipe; where two are wrong, the answer is as before.
    const refusals = [
      ['GET', '/v1/approvals/apr_nope?wait=soon', undefined, 400, 'invalid_wait'],
      ['GET', '/v1/approvals/apr_nope', undefined, 404, 'not_found'],
      ['POST', '/v1/approvals/apr_nope/cancel', undefined, 404, 'not_found'],
      ['POST', '/v1/approvals/apr_nope/redeem', { argumentsHash: 'md5:1' }, 404, 'not_found'],
    ] as const;
    for (const [method, path, payload, status, error] of refusals) {
      const answer = await system.call(method, path, { key, body: payload });
      expect({ path, status: answer.status, error: answer.body.error }).toEqual({
        path,
        status,
        error,
      });
    }
    const { id } = await pending();
    const badHash = await system.call('POST', `/v1/approvals/${id}/redeem`, { key, body: {} });
    expect([badHash.status, badHash.body.error]).toEqual([400, 'invalid_arguments_hash']);
    const huge = await system.create(key, body({ blob: 'x'.repeat(256 * 1024) }));
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('body_too_large');
  });

  it('A1 the same Idempotency-Key and an equal body answer the same approval; another body 409', async () => {
    const idem = 'retry-me';
    const first = await system.create(key, body(), idem);
    expect(first.status).toBe(202);
    // Equal as JSON (RFC 8785): other key order and spacing.
    const reordered = `{"agent":{"session":"s-1","name":"claude-code"},"summary":"Clean the build folder","arguments":{"command":"rm -rf build"},"tool":"Bash"}`;
    const again = await system.call('POST', '/v1/approvals', {
      key,
      body: reordered,
      headers: { 'idempotency-key': idem },
      replica: 1,
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const other = await system.create(key, body({ command: 'rm -rf /' }), idem);
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_reused');
    // Keys are the client's own: another client's same key is another approval.
    const otherClient = await system.create(otherKey, body(), idem);
    expect(otherClient.status).toBe(202);
    expect(otherClient.body.id).not.toBe(first.body.id);
  });

  it('A1 a route or approver the client was not created with is 403 route_not_allowed, and nothing is stored', async () => {
    const before = await system.query<{ n: string }>(
      'SELECT count(*) AS n FROM approvals WHERE client_id = $1',
      [clientId],
    );
    for (const extra of [
      { route: { channel: 'C_ELSEWHERE' } },
      { route: { platform: 'discord' } },
      { route: { workspace: 'T_OTHER', channel: 'C1' } },
      { approvers: ['U_MALLORY'] },
      { approvers: ['U_ALICE', 'U_MALLORY'] },
    ]) {
      const answer = await system.create(key, { ...body(), ...extra });
      expect({ extra, status: answer.status, error: answer.body.error }).toEqual({
        extra,
        status: 403,
        error: 'route_not_allowed',
      });
    }
    const after = await system.query<{ n: string }>(
      'SELECT count(*) AS n FROM approvals WHERE client_id = $1',
      [clientId],
    );
    expect(after[0]?.n).toBe(before[0]?.n);
  });

  it("A1 another client's approval is 404 not_found on every route", async () => {
    const { id } = await pending();
    for (const [method, path, payload] of [
      ['GET', `/v1/approvals/${id}`, undefined],
      ['POST', `/v1/approvals/${id}/cancel`, undefined],
      ['POST', `/v1/approvals/${id}/redeem`, { argumentsHash: argumentsHashOf({}) }],
    ] as const) {
      const answer = await system.call(method, path, { key: otherKey, body: payload });
      expect({ path, status: answer.status, error: answer.body.error }).toEqual({
        path,
        status: 404,
        error: 'not_found',
      });
    }
    expect((await system.call('GET', `/v1/approvals/${id}`, { key })).body.status).toBe('pending');
  });

  it('A1 a long poll on one replica is woken by a decision the other replica applies', async () => {
    const { id, request } = await pending();
    // Both replicas hold a wait; either may take the event off the durable.
    const polls = [0, 1].map((replica) =>
      system.call('GET', `/v1/approvals/${id}?wait=30`, { key, replica }),
    );
    await waitFor('both long polls to be held', async () => {
      const metrics = await Promise.all(
        system.replicas.map(async (r) => (await fetch(r.url('/metrics'))).text()),
      );
      return metrics.every((text) => /tollgate_approval_waits_held 1\b/.test(text));
    });
    await system.decide(request, 'approved', approvedBy('U_ALICE', 'Alice'));
    for (const answer of await Promise.all(polls)) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        id,
        status: 'approved',
        decision: {
          option: 'approve_once',
          by: { platform: 'slack', id: 'U_ALICE', displayName: 'Alice' },
          via: 'click',
          reason: null,
        },
      });
      expect(answer.body.decidedAt).toEqual(expect.any(String));
    }
  });

  it('A1 a wait that ends undecided answers the pending approval', async () => {
    const { id } = await pending();
    const answer = await system.call('GET', `/v1/approvals/${id}?wait=0.5`, { key });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('pending');
    expect((await system.call('GET', `/v1/approvals/${id}?wait=soon`, { key })).body.error).toBe(
      'invalid_wait',
    );
  });

  it('A1 cancel withdraws a pending approval through an ApprovalCancel; a second cancel is 409 not_pending', async () => {
    const { id, request } = await pending();
    const cancelled = await system.call('POST', `/v1/approvals/${id}/cancel`, { key, replica: 1 });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled', decision: null });
    expect(await system.cancelPublished(request)).toBe(true);
    const again = await system.call('POST', `/v1/approvals/${id}/cancel`, { key });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('not_pending');
    // The session's own cancelled event, or a late approval, changes nothing.
    await system.decide(request, 'approved', approvedBy('U_ALICE'));
    await system.decide(request, 'cancelled', null);
    const { id: probeId, request: probe } = await pending();
    await system.decide(probe, 'denied', deniedBy('U_BOB', 'Bob'));
    await waitFor('a later decision to be applied', async () => {
      const read = await system.call('GET', `/v1/approvals/${probeId}`, { key });
      return read.body.status === 'denied';
    });
    expect((await system.call('GET', `/v1/approvals/${id}`, { key })).body.status).toBe(
      'cancelled',
    );
  });

  it('A1 a cancel whose own ApprovalDecided(cancelled) is applied before its UPDATE still answers 200', async () => {
    // The cancel is published before the row changes, so a quick session service can decide it
    // and the decision consumer mark the row cancelled first (CI saw a 409 for it). A row lock
    // held here stops the cancel's UPDATE, and this transaction does what that consumer does.
    const { id, request } = await pending();
    const consumer = system.queryRunner();
    await consumer.connect();
    try {
      await consumer.startTransaction();
      await consumer.query(`SELECT 1 FROM approvals WHERE id = $1 FOR UPDATE`, [id]);
      const [{ pid }] = (await consumer.query(`SELECT pg_backend_pid() AS pid`)) as {
        pid: number;
      }[];
      const answer = system.call('POST', `/v1/approvals/${id}/cancel`, { key });
      await waitFor('the ApprovalCancel on the command stream', () =>
        system.cancelPublished(request),
      );
      await waitFor('the cancel’s UPDATE waiting on the row', async () => {
        const [{ waiting }] = await system.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
           WHERE $1 = ANY(pg_blocking_pids(pid)) AND query LIKE '%status = ''cancelled''%'`,
          [pid],
        );
        return waiting === 1;
      });
      await consumer.query(
        `UPDATE approvals SET status = 'cancelled', decided_at = now() WHERE id = $1`,
        [id],
      );
      await consumer.commitTransaction();
      expect(await answer).toMatchObject({
        status: 200,
        body: { id, status: 'cancelled', decision: null },
      });
    } finally {
      if (consumer.isTransactionActive) await consumer.rollbackTransaction();
      await consumer.release();
    }
  });

  it('A1 redeem is single use across replicas: of a race on both, exactly one 200', async () => {
    const { id, request } = await pending({ command: 'deploy', target: 'prod' });
    const hash = argumentsHashOf({ target: 'prod', command: 'deploy' });
    const early = await system.call('POST', `/v1/approvals/${id}/redeem`, {
      key,
      body: { argumentsHash: hash },
    });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('not_approved');
    await system.decide(request, 'approved', approvedBy('U_BOB'));
    await waitFor('the approval to read approved', async () => {
      const read = await system.call('GET', `/v1/approvals/${id}?wait=5`, { key });
      return read.body.status === 'approved';
    });
    const mismatch = await system.call('POST', `/v1/approvals/${id}/redeem`, {
      key,
      body: { argumentsHash: argumentsHashOf({ command: 'deploy', target: 'staging' }) },
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.error).toBe('arguments_mismatch');
    const race = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        system.call('POST', `/v1/approvals/${id}/redeem`, {
          key,
          body: { argumentsHash: hash },
          replica: i % 2,
        }),
      ),
    );
    const statuses = race.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, ...Array(11).fill(409)]);
    expect(
      race.filter((a) => a.status === 409).every((a) => a.body.error === 'already_redeemed'),
    ).toBe(true);
    const winner = race.find((answer) => answer.status === 200);
    expect(winner?.body.redeemedAt).toEqual(expect.any(String));
  });
});
