import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { roleInboxPrefix, type NatsRole } from '@tollgate/messaging';
import {
  deriveSessionId,
  encodeMessage,
  streamDefinitions,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import { freshConversation, userMessage } from '../support/commands';
import { freePort } from '../support/free-port';
import { OwnNatsServer } from '../support/own-nats-server';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

const ROOT = join(__dirname, '..', '..');
const CONFIG_SCRIPT = join(ROOT, 'scripts', 'nats-config.mjs');
const run = promisify(execFile);

interface Routez {
  num_routes: number;
}

/**
 * X10 (process): two nodes started as Compose starts the cluster profile (the configuration
 * `nats:config --cluster` writes, through nats/start-nats.sh), and the attack of issue 19: an
 * unconfigured nats-server routed at them, whose anonymous client reads outputs and publishes
 * commands. A node given the route password (the control) does join and read, so the
 * observation can see a join; the rogue has no route, reads nothing, and writes nothing.
 */
describe('X10 — cluster routes authenticated', () => {
  const prefix = uniqueToken('x10').slice(0, 20);
  const subjects = new Subjects(prefix);
  const streams = streamNames(prefix);
  const servers: OwnNatsServer[] = [];
  const clients: NatsConnection[] = [];
  let passwords: Record<string, string>;
  let nodes: OwnNatsServer[];
  let dir: string;
  let firstRoutePort: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-x10-'));
    const configFile = join(dir, 'cluster.conf');
    await run(process.execPath, [
      CONFIG_SCRIPT,
      '--prefix',
      prefix,
      '--cluster',
      '--out',
      configFile,
    ]);
    const { stdout } = await run(process.execPath, [CONFIG_SCRIPT, '--cluster', '--passwords']);
    passwords = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=') as [string, string]),
    );
    const routePorts = [await freePort(), await freePort()];
    const routeHosts = routePorts.map((port) => `127.0.0.1:${port}`).join(',');
    nodes = await Promise.all(
      routePorts.map((port, i) =>
        OwnNatsServer.start({
          configFile,
          throughStartScript: true,
          args: ['--server_name', `n${i + 1}`],
          env: {
            ...passwords,
            NATS_ROUTE_HOSTS: routeHosts,
            NATS_CLUSTER_LISTEN: `127.0.0.1:${port}`,
          },
        }),
      ),
    );
    servers.push(...nodes);
    const operator = await connectAs('operator', nodes[0]);
    await waitFor(
      'the two nodes to form a JetStream cluster',
      async () => {
        const jsm = await jetstreamManager(operator, { timeout: 2_000 });
        await jsm.getAccountInfo();
        return true;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const jsm = await jetstreamManager(operator);
    const definitions = streamDefinitions(prefix);
    for (const stream of [definitions.commands, definitions.outputs]) {
      await jsm.streams.add({ name: stream.name, subjects: stream.subjects });
    }
    firstRoutePort = routePorts[0]!;
  });

  afterAll(async () => {
    await Promise.all(clients.map((nc) => nc.close().catch(() => undefined)));
    await Promise.all(servers.map((server) => server.dispose()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function connectAs(role: NatsRole, server: OwnNatsServer): Promise<NatsConnection> {
    const nc = (await connect({
      servers: server.url,
      user: role,
      pass: passwords[`NATS_PASSWORD_${role.toUpperCase().replace(/-/g, '_')}`],
      inboxPrefix: roleInboxPrefix(prefix, role),
    })) as NatsConnection;
    clients.push(nc);
    return nc;
  }

  /** An unconfigured nats-server routed at n1, with its own monitoring port to read. */
  async function rogueNode(routeUrl: string): Promise<{ server: OwnNatsServer; monitor: number }> {
    const monitor = await freePort();
    const configFile = join(dir, `rogue-${monitor}.conf`);
    await writeFile(
      configFile,
      [
        'cluster {',
        '  name: "tollgate"',
        `  listen: "127.0.0.1:${await freePort()}"`,
        `  routes: [${JSON.stringify(routeUrl)}]`,
        '}',
        '',
      ].join('\n'),
    );
    const server = await OwnNatsServer.start({
      configFile,
      jetstream: false,
      args: ['-m', String(monitor), '--server_name', `rogue-${monitor}`],
    });
    servers.push(server);
    return { server, monitor };
  }

  async function routesOf(monitor: number): Promise<number> {
    const response = await fetch(`http://127.0.0.1:${monitor}/routez`);
    return ((await response.json()) as Routez).num_routes;
  }

  function collect(sub: Subscription): string[] {
    const seen: string[] = [];
    void (async () => {
      for await (const message of sub) seen.push(message.subject);
    })();
    return seen;
  }

  it('X10 a rogue node without the route password cannot join: its anonymous client reads no output and writes no command', async () => {
    const rogue = await rogueNode(`nats-route://127.0.0.1:${firstRoutePort}`);
    const intruder = (await connect({ servers: rogue.server.url })) as NatsConnection;
    clients.push(intruder);
    const stolen = collect(intruder.subscribe(`${prefix}.out.>`));
    const forged = userMessage(freshConversation('discord'), '!write_note {"text":"rogue"}');
    intruder.publish(
      subjects.command('discord', forged.sessionId, 'message'),
      encodeMessage(forged),
    );
    await intruder.flush();

    // The control: a node that knows the route password joins, and its client does read.
    const control = await rogueNode(
      `nats-route://route:${passwords.NATS_PASSWORD_ROUTE}@127.0.0.1:${firstRoutePort}`,
    );
    await waitFor('the control node to be routed', async () =>
      (await routesOf(control.monitor)) > 0 ? true : undefined,
    );
    const reader = (await connect({ servers: control.server.url })) as NatsConnection;
    clients.push(reader);
    const read = collect(reader.subscribe(`${prefix}.out.>`));
    await reader.flush();

    const session = await connectAs('session-service', nodes[1]);
    const output = subjects.textOutput('discord', deriveSessionId(freshConversation('discord')));
    const js = jetstream(session);
    await waitFor('the control node to read an output published on n2', async () => {
      await js.publish(output, new TextEncoder().encode('{}'));
      return read.includes(output) ? true : undefined;
    });

    expect(await routesOf(rogue.monitor)).toBe(0);
    expect(stolen).toEqual([]);
    const operator = await jetstreamManager(await connectAs('operator', nodes[0]));
    expect((await operator.streams.info(streams.commands)).state.messages).toBe(0);
  });
});
