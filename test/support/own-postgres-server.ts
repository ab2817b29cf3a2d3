import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

const BIN = process.env.POSTGRES_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
/** PostgreSQL refuses to run as root; the package's own user does, when tests run as root. */
const OS_USER = { uid: 101, gid: 104 };

/**
 * A private PostgreSQL cluster for tests that stop and restart it; the shared server, which
 * other test runs use, is never touched. Data directory and port survive restarts. Durability
 * is relaxed only where a process crash cannot tell (fsync).
 */
export class OwnPostgresServer {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<OwnPostgresServer> {
    const dir = await mkdtemp(join(tmpdir(), 'tollgate-pg-'));
    const root = userInfo().uid === 0;
    if (root) {
      await chown(dir, OS_USER.uid, OS_USER.gid);
      await chmod(dir, 0o700);
    }
    await promisify(execFile)(
      join(BIN, 'initdb'),
      ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'],
      root ? OS_USER : {},
    );
    const server = new OwnPostgresServer(await freePort(), dir);
    await server.restart();
    return server;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async restart(): Promise<void> {
    if (this.child) throw new Error('postgres is already running');
    const root = userInfo().uid === 0;
    const child = spawn(
      join(BIN, 'postgres'),
      [
        '-D',
        join(this.dir, 'data'),
        '-p',
        String(this.port),
        '-k',
        this.dir,
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
        // Only fsync is off: a crash of the server keeps the OS page cache, so nothing written
        // is lost. synchronous_commit stays on, or a commit already acknowledged could vanish
        // with the WAL buffers, a loss no real server in its default settings would show.
        ...['-c', 'fsync=off'],
      ],
      { stdio: 'ignore', ...(root ? OS_USER : {}) },
    );
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    await waitFor(
      `postgres on port ${this.port}`,
      async () => {
        const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 1_000 });
        try {
          await client.connect();
          await client.query('SELECT 1');
          return true;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  /** Stops it as a crash would (SIGQUIT: immediate shutdown, every backend gone at once). */
  async crash(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGQUIT');
    await exited;
  }

  async dispose(): Promise<void> {
    await this.crash();
    await rm(this.dir, { recursive: true, force: true });
  }
}
