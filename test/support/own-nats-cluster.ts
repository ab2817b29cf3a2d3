import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort } from './free-port';
import { connectTestNats } from './nats';
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

interface Node {
  readonly name: string;
  readonly port: number;
  readonly clusterPort: number;
  readonly configFile: string;
  child?: ChildProcess;
}

/**
 * A private three-node JetStream cluster on loopback ports, for tests that kill a node: each
 * node its own store, all routed to each other. The shared server is never touched.
 */
export class OwnNatsCluster {
  private constructor(
    private readonly dir: string,
    readonly nodes: readonly Node[],
  ) {}

  static async start(size = 3): Promise<OwnNatsCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'tollgate-nats-cluster-'));
    const ports = await Promise.all(
      Array.from({ length: size }, async () => ({
        port: await freePort(),
        clusterPort: await freePort(),
      })),
    );
    const routes = ports.map((p) => `nats-route://127.0.0.1:${p.clusterPort}`);
    const nodes: Node[] = [];
    for (const [i, { port, clusterPort }] of ports.entries()) {
      const name = `n${i + 1}`;
      const store = join(dir, name);
      await mkdir(store);
      const configFile = join(dir, `${name}.conf`);
      await writeFile(
        configFile,
        [
          `server_name: ${name}`,
          `listen: 127.0.0.1:${port}`,
          `jetstream { store_dir: ${JSON.stringify(store)} }`,
          'cluster {',
          '  name: tollgate-test',
          `  listen: 127.0.0.1:${clusterPort}`,
          `  routes: [${routes.map((r) => JSON.stringify(r)).join(', ')}]`,
          '}',
          '',
        ].join('\n'),
      );
      nodes.push({ name, port, clusterPort, configFile });
    }
    const cluster = new OwnNatsCluster(dir, nodes);
    await Promise.all(nodes.map((node) => cluster.startNode(node)));
    await cluster.untilJetStreamReady();
    return cluster;
  }

  /** Every node's client URL, comma-separated, as the services take NATS_URL. */
  get url(): string {
    return this.nodes.map((node) => `nats://127.0.0.1:${node.port}`).join(',');
  }

  /** Routes are up and the meta leader elected once an account info request is answered. */
  private async untilJetStreamReady(): Promise<void> {
    const nc = await connectTestNats(this.url.split(','));
    try {
      await waitFor(
        'the JetStream cluster to elect a meta leader',
        async () => {
          const jsm = await jetstreamManager(nc, { timeout: 2_000 });
          await jsm.getAccountInfo();
          return true;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      );
    } finally {
      await nc.close();
    }
  }

  private async startNode(node: Node): Promise<void> {
    const child = spawn(NATS_SERVER, ['-c', node.configFile], {
      stdio: 'ignore',
      env: { PATH: process.env.PATH },
    });
    node.child = child;
    child.once('exit', () => {
      if (node.child === child) node.child = undefined;
    });
    await waitFor(`nats-server ${node.name} on port ${node.port}`, () => accepts(node.port));
  }

  /** SIGKILLs one node, as a crashed machine: nothing is flushed, no lame-duck notice. */
  async kill(index: number): Promise<void> {
    const node = this.nodes[index];
    const child = node?.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((_, i) => this.kill(i)));
    await rm(this.dir, { recursive: true, force: true });
  }
}
