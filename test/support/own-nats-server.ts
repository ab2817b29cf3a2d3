import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A private nats-server with JetStream for tests that stop and restart it; the shared
 * server is never touched. It keeps its port and store directory across restarts.
 */
export class OwnNatsServer {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    private readonly storeDir: string,
    private readonly extraArgs: readonly string[] = [],
  ) {}

  /** `maxPayloadBytes` sets the server's max_payload (default 1 MiB). */
  static async start(options: { maxPayloadBytes?: number } = {}): Promise<OwnNatsServer> {
    const storeDir = await mkdtemp(join(tmpdir(), 'tollgate-nats-'));
    const extraArgs: string[] = [];
    if (options.maxPayloadBytes !== undefined) {
      const config = join(storeDir, 'limits.conf');
      await writeFile(config, `max_payload: ${options.maxPayloadBytes}\n`);
      extraArgs.push('-c', config);
    }
    const server = new OwnNatsServer(await freePort(), storeDir, extraArgs);
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    if (this.child) throw new Error('nats-server is already running');
    const child = spawn(
      NATS_SERVER,
      [...this.extraArgs, '-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir],
      { stdio: 'ignore' },
    );
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    await waitFor(`nats-server on port ${this.port}`, () => accepts(this.port));
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    await waitFor(`port ${this.port} to close`, async () => !(await accepts(this.port)));
  }

  async dispose(): Promise<void> {
    if (this.child) {
      const child = this.child;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }
    await rm(this.storeDir, { recursive: true, force: true });
  }
}
