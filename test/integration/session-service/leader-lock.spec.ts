import pino from 'pino';
import {
  LeaderLock,
  leaderApplicationName,
} from '../../../apps/session-service/src/leadership/leader-lock';
import { createTestSchema, TEST_DATABASE_URL, withClient } from '../../support/database';
import { waitFor } from '../../support/wait-for';

const logger = pino({ level: 'silent' });

describe('leader lock', () => {
  const locks: LeaderLock[] = [];

  function lockFor(schema: string, onLost: (error: Error) => void = () => undefined) {
    const lock = new LeaderLock({
      databaseUrl: TEST_DATABASE_URL,
      schema,
      logger,
      onLost,
      pollIntervalMs: 50,
    });
    locks.push(lock);
    return lock;
  }

  afterEach(async () => {
    await Promise.all(locks.splice(0).map((lock) => lock.release()));
  });

  it('one instance per schema holds it; the other takes over once it is released', async () => {
    const { schema } = createTestSchema('leader');
    const first = lockFor(schema);
    const second = lockFor(schema);
    expect(await first.acquire()).toBe(true);
    expect(first.role).toBe('active');

    let secondHeld: boolean | undefined;
    const waiting = second.acquire().then((held) => (secondHeld = held));
    // The standby has polled at least once (and been refused) before the holder lets go.
    await waitFor('the standby to poll', () =>
      withClient(async (client) => {
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`,
          [leaderApplicationName(schema)],
        );
        return rows[0].n === 2;
      }),
    );
    expect(secondHeld).toBeUndefined();
    expect(second.role).toBe('standby');

    await first.release();
    expect(first.role).toBe('standby');
    await waiting;
    expect(secondHeld).toBe(true);
    expect(second.role).toBe('active');
  });

  it('instances of different schemas never contend', async () => {
    const a = lockFor(createTestSchema('leadera').schema);
    const b = lockFor(createTestSchema('leaderb').schema);
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(true);
  });

  it('releasing a standby ends its wait at once and closes its connection', async () => {
    const { schema } = createTestSchema('leaderwait');
    const holder = lockFor(schema);
    await holder.acquire();
    const standby = lockFor(schema);
    const waiting = standby.acquire();
    await standby.release();
    expect(await waiting).toBe(false);
    expect(standby.role).toBe('standby');
    const connections = await withClient(async (client) => {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`,
        [leaderApplicationName(schema)],
      );
      return rows[0].n;
    });
    expect(connections).toBe(1);
  });

  it('reports the loss once when the connection holding it is killed', async () => {
    const { schema } = createTestSchema('leaderlost');
    const losses: Error[] = [];
    const lock = lockFor(schema, (error) => losses.push(error));
    await lock.acquire();
    await withClient((client) =>
      client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
        [leaderApplicationName(schema)],
      ),
    );
    await waitFor('the loss to be reported', () => losses.length > 0);
    expect(losses).toHaveLength(1);
    expect(lock.role).toBe('standby');
  });

  it('R5 the holder proves on its own connection, at least every 5 s, that the lock is still granted', async () => {
    const { schema } = createTestSchema('leaderproof');
    const lock = lockFor(schema);
    await lock.acquire();
    let last = lock.provenAt!;
    for (let proofs = 0; proofs < 2; proofs += 1) {
      const previous = last;
      last = await waitFor(
        'the next proof',
        () => (lock.provenAt !== undefined && lock.provenAt > previous ? lock.provenAt : undefined),
        { timeoutMs: 5_000 },
      );
    }
    expect(lock.role).toBe('active');
  });

  it('R5 a proof nobody answers (the backend stopped, its socket open) counts as losing the lock, once', async () => {
    const { schema } = createTestSchema('leadersilent');
    const losses: Error[] = [];
    const lock = new LeaderLock({
      databaseUrl: TEST_DATABASE_URL,
      schema,
      logger,
      onLost: (error) => losses.push(error),
      proofIntervalMs: 200,
      proofTimeoutMs: 1_000,
    });
    locks.push(lock);
    await lock.acquire();
    const [{ pid }] = await withClient(async (client) => {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
        [leaderApplicationName(schema)],
      );
      return rows;
    });
    process.kill(pid, 'SIGSTOP');
    try {
      // Well within the 15 s the protocol allows: one interval and one unanswered proof.
      await waitFor('the loss to be reported', () => losses.length > 0, { timeoutMs: 5_000 });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(losses).toHaveLength(1);
    expect(losses[0].message).toContain('could not be proven within 1000 ms');
    expect(lock.role).toBe('standby');
  });
});
