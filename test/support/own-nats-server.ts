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

export interface OwnNatsServerOptions {
  /** A configuration file (e.g. the authorization `npm run nats:config` writes). */
  readonly configFile?: string;
  /** The server's environment, for the variables that file references. */
  readonly env?: Record<string, string>;
  /** The server's max_payload (default 1 MiB); not together with `configFile`. */
  readonly maxPayloadBytes?: number;
  /**
   * Start it as Compose does, through nats/start-nats.sh (which refuses weak passwords and
   * builds the cluster routes); needs `configFile`.
   */
  readonly throughStartScript?: boolean;
  /** More nats-server options, e.g. `--server_name`. */
  readonly args?: readonly string[];
  /** False: a plain nats-server, without JetStream (default: with). */
  readonly jetstream?: boolean;
}

const START_SCRIPT = join(__dirname, '..', '..', 'nats', 'start-nats.sh');

/**
 * A private nats-server with JetStream for tests that stop and restart it; the shared
 * server is never touched. It keeps its port and store directory across restarts.
 */
export class OwnNatsServer {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    private readonly storeDir: string,
    private readonly options: OwnNatsServerOptions,
  ) {}

  static async start(options: OwnNatsServerOptions = {}): Promise<OwnNatsServer> {
    const storeDir = await mkdtemp(join(tmpdir(), 'tollgate-nats-'));
    let configFile = options.configFile;
    if (options.maxPayloadBytes !== undefined) {
      if (configFile !== undefined) throw new Error('give either configFile or maxPayloadBytes');
      configFile = join(storeDir, 'limits.conf');
      await writeFile(configFile, `max_payload: ${options.maxPayloadBytes}\n`);
    }
    const server = new OwnNatsServer(await freePort(), storeDir, { ...options, configFile });
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    if (this.child) throw new Error('nats-server is already running');
    const { configFile, env, throughStartScript, args = [], jetstream = true } = this.options;
    const serverArgs = [
      ...(configFile ? ['-c', configFile] : []),
      ...['-a', '127.0.0.1', '-p', String(this.port)],
      ...(jetstream ? ['-js', '-sd', this.storeDir] : []),
      ...args,
    ];
    const child = throughStartScript
      ? spawn('/bin/sh', [START_SCRIPT, ...serverArgs], {
          stdio: 'ignore',
          env: { PATH: process.env.PATH, NATS_SERVER_BIN: NATS_SERVER, ...env },
        })
      : spawn(NATS_SERVER, serverArgs, {
          stdio: 'ignore',
          env: { PATH: process.env.PATH, ...env },
        });
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
