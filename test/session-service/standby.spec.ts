import { deriveSessionId } from '@tollgate/protocol';
import { leaderApplicationName } from '../../apps/session-service/src/leadership/leader-lock';
import { freshConversation, response, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { is } from '../support/nats';
import { type ServiceProcess, startService } from '../support/service-process';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

interface ReadyBody {
  status: string;
  checks: Record<string, boolean>;
  role?: string;
}

async function readiness(process: ServiceProcess): Promise<{ status: number; body: ReadyBody }> {
  const res = await fetch(process.url('/health/ready'));
  return { status: res.status, body: (await res.json()) as ReadyBody };
}

/** Commands this instance pulled and settled, from its own /metrics. */
async function commandsHandled(process: ServiceProcess): Promise<number> {
  const text = await (await fetch(process.url('/metrics'))).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('tollgate_messages_handled_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

function waitForRole(process: ServiceProcess, role: 'active' | 'standby', timeoutMs = 5_000) {
  return waitFor(
    `the ${role} role`,
    async () => {
      const ready = await readiness(process);
      if (ready.status !== 200 || ready.body.role !== role) throw new Error(JSON.stringify(ready));
      return ready;
    },
    { timeoutMs },
  );
}

/** Backend pids of the leader-lock connections on the schema, the holder's flagged. */
async function leaderConnections(schema: string): Promise<{ pid: number; holds: boolean }[]> {
  return withClient(async (client) => {
    const { rows } = await client.query<{ pid: number; holds: boolean }>(
      `SELECT a.pid, EXISTS (
         SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
       ) AS holds
       FROM pg_stat_activity a WHERE a.application_name = $1`,
      [leaderApplicationName(schema)],
    );
    return rows;
  });
}

async function terminateBackend(pid: number): Promise<void> {
  await withClient((client) => client.query('SELECT pg_terminate_backend($1)', [pid]));
}

/** (process) Two instances on one schema and prefix: one works, the other waits its turn. */
describe('session service standby (process)', () => {
  let service: SessionServiceFixture;
  const others: ServiceProcess[] = [];

  async function startAnother(): Promise<ServiceProcess> {
    const other = await startService('session-service', service.env());
    others.push(other);
    await other.waitUntilReady();
    return other;
  }

  beforeAll(async () => {
    service = await SessionServiceFixture.create('standby');
  });

  afterEach(async () => {
    await Promise.all(others.splice(0).map((other) => other.stop('SIGKILL')));
    if (!service.process) await service.start();
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('S12 a standby pulls nothing while the active instance lives; it takes over when that one is killed and emits the refreshes', async () => {
    const active = service.process!;
    const first = await waitForRole(active, 'active');
    expect(first.body.checks).toMatchObject({ 'consumer:session-service': true, leadership: true });

    const standby = await startAnother();
    const waiting = await readiness(standby);
    expect(waiting.status).toBe(200);
    expect(waiting.body.role).toBe('standby');
    expect(waiting.body.checks).toMatchObject({ nats: true, database: true, leadership: true });
    expect(waiting.body.checks).not.toHaveProperty('consumer:session-service');

    const parked = freshConversation();
    const sessionId = deriveSessionId(parked);
    await service.send(userMessage(parked, '!write_note {"text":"over to you"}'));
    const [request] = await service.outputs.waitForOutputs('the request', is.request(), {
      sessionId,
    });
    // More commands than one pull takes, so a standby that pulled would get some of them.
    const chats = Array.from({ length: 8 }, () => freshConversation());
    await Promise.all(chats.map((c, i) => service.send(userMessage(c, `hello ${i}`))));
    for (const [i, c] of chats.entries()) {
      await service.outputs.waitForOutputs(`reply ${i}`, is.text(`You said: hello ${i}`), {
        sessionId: deriveSessionId(c),
      });
    }
    expect(await commandsHandled(active)).toBe(1 + chats.length);
    expect(await commandsHandled(standby)).toBe(0);
    expect((await readiness(standby)).body.role).toBe('standby');

    const killed = await service.stop('SIGKILL');
    expect(killed?.signal).toBe('SIGKILL');
    const takenOver = await waitForRole(standby, 'active');
    expect(takenOver.body.checks['consumer:session-service']).toBe(true);

    const [refresh] = await service.outputs.waitForOutputs(
      'the refresh from the new active instance',
      is.update('RefreshedAfterRestart', request.callId),
      { sessionId },
    );
    expect(refresh.request).toEqual(request);
    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'SessionRecovered')).toHaveLength(1);

    await service.send(response(parked, request.callId, 'approve_once'));
    await service.outputs.waitForOutputs('the reply', is.text('write_note: 1'), { sessionId });
    await service.outputs.waitForOutputs('the resolution', is.resolved(request.callId), {
      sessionId,
    });
    expect(await commandsHandled(standby)).toBe(1);
  });

  it('S12 a standby stops at once on SIGTERM and leaves the active instance working', async () => {
    const standby = await startAnother();
    expect((await readiness(standby)).body.role).toBe('standby');
    const stopping = Date.now();
    expect(await standby.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(Date.now() - stopping).toBeLessThan(1_000);
    expect(standby.output()).not.toContain('overran');
    expect(await leaderConnections(service.database.schema)).toEqual([
      { pid: expect.any(Number), holds: true },
    ]);

    const conversation = freshConversation();
    await service.send(userMessage(conversation, 'still served'));
    await service.outputs.waitForOutputs('the reply', is.text('You said: still served'), {
      sessionId: deriveSessionId(conversation),
    });
  });

  it('S12 losing the lock connection ends the active instance at once; a standby losing its own only reconnects', async () => {
    const active = service.process!;
    await waitForRole(active, 'active');
    const standby = await startAnother();
    await waitFor('both leader connections', async () => {
      const connections = await leaderConnections(service.database.schema);
      return connections.length === 2 ? connections : undefined;
    });

    const waiter = (await leaderConnections(service.database.schema)).find((c) => !c.holds)!;
    await terminateBackend(waiter.pid);
    await waitFor('the standby to reconnect', async () => {
      const connections = await leaderConnections(service.database.schema);
      return connections.length === 2 && !connections.some((c) => c.pid === waiter.pid);
    });
    expect(standby.child.exitCode).toBeNull();
    expect((await readiness(standby)).body.role).toBe('standby');

    const holder = (await leaderConnections(service.database.schema)).find((c) => c.holds)!;
    const cut = Date.now();
    await terminateBackend(holder.pid);
    const exit = await active.exited();
    expect(exit.code).toBe(1);
    expect(Date.now() - cut).toBeLessThan(2_000);
    expect(active.output()).toContain('lost the leader lock connection');
    service.process = undefined;

    await waitForRole(standby, 'active');
    const conversation = freshConversation();
    await service.send(userMessage(conversation, 'who is there?'));
    await service.outputs.waitForOutputs('the reply', is.text('You said: who is there?'), {
      sessionId: deriveSessionId(conversation),
    });
  });

  it('R5 a silent partition of the lock connection (its backend stopped, nothing closed) ends the active instance within 15 s; the standby takes over once the lock is free', async () => {
    const active = service.process!;
    await waitForRole(active, 'active');
    const standby = await startAnother();
    const holder = await waitFor('the holder of the lock', async () =>
      (await leaderConnections(service.database.schema)).find((c) => c.holds),
    );

    // The backend stops answering but its socket stays open: TCP keepalive sees nothing wrong.
    const cut = Date.now();
    process.kill(holder.pid, 'SIGSTOP');
    try {
      const exit = await waitFor(
        'the active instance to exit',
        () => (active.child.exitCode !== null ? { code: active.child.exitCode } : undefined),
        { timeoutMs: 15_000 },
      );
      expect(exit.code).toBe(1);
      expect(Date.now() - cut).toBeLessThan(15_000);
      expect(active.output()).toContain('lost the leader lock connection');
      expect(active.output()).toContain('could not be proven');
      service.process = undefined;
      expect((await readiness(standby)).body.role).toBe('standby');
    } finally {
      process.kill(holder.pid, 'SIGCONT');
    }

    // The resumed backend finds its client gone and ends, which frees the lock.
    await waitForRole(standby, 'active', 15_000);
    const conversation = freshConversation();
    await service.send(userMessage(conversation, 'after the partition'));
    await service.outputs.waitForOutputs('the reply', is.text('You said: after the partition'), {
      sessionId: deriveSessionId(conversation),
    });
  });
});
