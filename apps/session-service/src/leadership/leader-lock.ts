import { Client, type QueryConfig } from 'pg';
import type { Logger } from 'pino';

/**
 * The first key of the two-key advisory lock ('toll'); the second is hashtext(schema), so
 * services on different schemas of one database (test runs, side-by-side deployments)
 * never contend.
 */
export const LEADER_LOCK_CLASS_ID = 0x746f6c6c;

/** PostgreSQL keeps NAMEDATALEN - 1 bytes of application_name and drops the rest. */
const APPLICATION_NAME_MAX = 63;

const DEFAULT_POLL_INTERVAL_MS = 500;
const RECONNECT_DELAY_MS = 1_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** How often the holder proves it still holds the lock; the protocol asks for 5 s at most. */
const DEFAULT_PROOF_INTERVAL_MS = 2_000;
/**
 * How long one proof may take. A partition that closes nothing (a stopped backend, a dropped
 * route) leaves the query unanswered, not failed; past this the lock counts as lost, so the
 * holder stops within interval + timeout (7 s by default) of losing it.
 */
const DEFAULT_PROOF_TIMEOUT_MS = 5_000;

export type LeaderRole = 'active' | 'standby';

export interface LeaderLockOptions {
  /** For the lock's own connection: a pooled one could be recycled and drop the lock. */
  databaseUrl: string;
  schema: string;
  logger: Logger;
  /**
   * Called once when the connection holding the lock fails. From then on another instance
   * may take over, so the caller must stop working at once.
   */
  onLost: (error: Error) => void;
  pollIntervalMs?: number;
  proofIntervalMs?: number;
  proofTimeoutMs?: number;
}

type LockState = 'waiting' | 'held' | 'lost' | 'released';

/** What shows up in pg_stat_activity for the connection that holds (or waits for) the lock. */
export function leaderApplicationName(schema: string): string {
  return `tollgate-leader:${schema}`.slice(0, APPLICATION_NAME_MAX);
}

/**
 * Leadership of one session-service schema: a session-level advisory lock held on a
 * dedicated connection for as long as the instance is active. A standby polls with
 * pg_try_advisory_lock rather than blocking in pg_advisory_lock, so a shutdown never has
 * to cancel a query on the server. Releasing closes the connection, which is what drops
 * the lock, also when the process dies without releasing.
 */
export class LeaderLock {
  private state: LockState = 'waiting';
  private answered = false;
  private client?: Client;
  private wake?: () => void;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly proofIntervalMs: number;
  private readonly proofTimeoutMs: number;
  private proofTimer?: NodeJS.Timeout;
  private lastProofAt?: number;

  constructor(private readonly options: LeaderLockOptions) {
    this.logger = options.logger.child({ component: 'leader-lock' });
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.proofIntervalMs = options.proofIntervalMs ?? DEFAULT_PROOF_INTERVAL_MS;
    this.proofTimeoutMs = options.proofTimeoutMs ?? DEFAULT_PROOF_TIMEOUT_MS;
  }

  /** When the holder last saw its lock granted in pg_locks (epoch ms), if it holds it. */
  get provenAt(): number | undefined {
    return this.state === 'held' ? this.lastProofAt : undefined;
  }

  get role(): LeaderRole {
    return this.state === 'held' ? 'active' : 'standby';
  }

  /** Whether PostgreSQL has answered a try yet, i.e. whether `role` means anything. */
  get decided(): boolean {
    return this.answered;
  }

  /** Resolves true once the lock is held, or false if released before it was taken. */
  async acquire(): Promise<boolean> {
    let announced = false;
    while (this.state === 'waiting') {
      const client = this.connection();
      try {
        await client.connect();
        // Only now may release() end it: pg never settles connect() when ended meanwhile.
        if (this.state === 'waiting') this.client = client;
        while (this.state === 'waiting' && this.client === client) {
          const { rows } = await client.query<{ taken: boolean }>(
            'SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken',
            [LEADER_LOCK_CLASS_ID, this.options.schema],
          );
          // Released while the query ran: the connection is closing, and the lock with it.
          if (this.state !== 'waiting') break;
          this.answered = true;
          if (rows[0]?.taken === true) {
            this.state = 'held';
            this.lastProofAt = Date.now();
            this.scheduleProof(client);
            this.logger.info({ schema: this.options.schema }, 'holding the leader lock');
            return true;
          }
          if (!announced) {
            announced = true;
            this.logger.info(
              { schema: this.options.schema },
              'another instance holds the leader lock; standing by',
            );
          }
          await this.pause(this.pollIntervalMs);
        }
      } catch (error) {
        if (this.state === 'waiting') {
          this.logger.warn(
            { err: error, retryInMs: RECONNECT_DELAY_MS },
            'waiting for the leader lock failed; reconnecting',
          );
        }
      }
      if (this.client === client) this.client = undefined;
      await client.end().catch(() => undefined);
      if (this.state === 'waiting') await this.pause(RECONNECT_DELAY_MS);
    }
    return false;
  }

  /** Stops waiting, or gives the lock up by closing its connection. Idempotent. */
  async release(): Promise<void> {
    clearTimeout(this.proofTimer);
    const held = this.state === 'held';
    if (this.state === 'waiting' || this.state === 'held') this.state = 'released';
    this.wake?.();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    if (held) this.logger.info('released the leader lock');
  }

  /**
   * TCP keepalive takes minutes to notice a silent partition, and a connection can look open
   * while its backend no longer answers. So the holder asks PostgreSQL, on the lock's own
   * connection, whether its backend still holds the lock, and gives up if no answer comes.
   */
  private scheduleProof(client: Client): void {
    this.proofTimer = setTimeout(() => void this.prove(client), this.proofIntervalMs);
  }

  private async prove(client: Client): Promise<void> {
    if (this.state !== 'held' || this.client !== client) return;
    let held = false;
    let failure: Error | undefined;
    try {
      // pg honours a per-query client-side timeout; its types only know the per-client one.
      const proof: QueryConfig<unknown[]> & { query_timeout: number } = {
        text: `SELECT EXISTS (
                 SELECT 1 FROM pg_locks
                  WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
                    AND classid = $1::bigint::oid AND objid = hashtext($2)::oid AND objsubid = 2
               ) AS held`,
        values: [LEADER_LOCK_CLASS_ID, this.options.schema],
        query_timeout: this.proofTimeoutMs,
      };
      const { rows } = await client.query<{ held: boolean }>(proof);
      held = rows[0]?.held === true;
      if (!held) failure = new Error('the leader lock is no longer granted to this connection');
    } catch (error) {
      failure = new Error(
        `the leader lock could not be proven within ${this.proofTimeoutMs} ms: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
    if (this.state !== 'held' || this.client !== client) return;
    if (held) {
      this.lastProofAt = Date.now();
      this.scheduleProof(client);
      return;
    }
    this.lose(client, failure ?? new Error('the leader lock could not be proven'));
  }

  private lose(client: Client, error: Error): void {
    clearTimeout(this.proofTimer);
    this.client = undefined;
    this.state = 'lost';
    // Not awaited: a backend that does not answer may never acknowledge the goodbye.
    client.end().catch(() => undefined);
    this.options.onLost(error);
  }

  private connection(): Client {
    const client = new Client({
      connectionString: this.options.databaseUrl,
      application_name: leaderApplicationName(this.options.schema),
      // An idle connection learns of a dead peer only by probing it.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    const failed = (error: Error) => {
      // A connection given up on purpose, or an old one replaced while waiting, is no news.
      if (this.client !== client) return;
      if (this.state !== 'held') {
        this.client = undefined;
        return;
      }
      this.lose(client, error);
    };
    client.on('error', failed);
    client.on('end', () => failed(new Error('the leader lock connection closed')));
    return client;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
