import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { type SandboxProcess, startSandbox } from '../support/sandbox-process';
import { waitFor } from '../support/wait-for';

/**
 * (process) `npm start` on a machine other people use: its NATS and PostgreSQL take only the
 * passwords it drew (kept owner-only), and nothing it runs listens beyond loopback.
 */
let dataDir: string;
let sandbox: SandboxProcess | undefined;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tollgate-shared-machine-'));
  // As root, PostgreSQL runs as the `postgres` user, which must reach its data directory.
  chmodSync(dataDir, 0o755);
});

afterAll(async () => {
  await sandbox?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Secrets {
  nats: Record<string, string>;
  postgres: string;
}

/** The sandbox and every process below it (the services, nats-server, PostgreSQL, MCP). */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** Listening TCP sockets by inode, with their local address as /proc/net/tcp{,6} shows it. */
function listeningSockets(): Map<string, string> {
  const sockets = new Map<string, string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A') sockets.set(fields[9], fields[1]);
    }
  }
  return sockets;
}

/** 0100007F:1F90 → 127.0.0.1:8080; a v6 address is shown in hex. */
function readable(address: string): string {
  const [host, port] = address.split(':');
  const ip =
    host.length === 8
      ? (host.match(/../g) ?? [])
          .reverse()
          .map((byte) => parseInt(byte, 16))
          .join('.')
      : host;
  return `${ip}:${parseInt(port, 16)}`;
}

function listenersOf(pids: readonly number[]): { pid: number; address: string }[] {
  const sockets = listeningSockets();
  const found: { pid: number; address: string }[] = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const link = readLink(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(link ?? '')?.[1];
      const address = inode === undefined ? undefined : sockets.get(inode);
      if (address !== undefined) found.push({ pid, address: readable(address) });
    }
  }
  return found;
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

// A sandbox is given 90 s to become ready; a test must outlast its own waits, or on a loaded
// machine jest's 60 s default ends it first (X15 did under load) and the wait never reports.
jest.setTimeout(180_000);

describe('X15 — npm start is safe on a shared machine', () => {
  it('X15 its NATS refuses anonymous and wrong-password connections, its PostgreSQL refuses no or a wrong password (scram-sha-256, no trust), every listener of its processes is on 127.0.0.1, and the page still gets a prompt through', async () => {
    sandbox = await startSandbox(
      { TOLLGATE_DATA_DIR: dataDir, TOLLGATE_DRAIN_MS: '3000', LOG_LEVEL: 'warn' },
      { readyWithinMs: 90_000 },
    );
    const printed = sandbox.output();
    const natsPort = Number(/NATS: started .* on 127\.0\.0\.1:(\d+)/.exec(printed)?.[1]);
    const pgPort = Number(/PostgreSQL: embedded, on 127\.0\.0\.1:(\d+)/.exec(printed)?.[1]);
    const secretsFile = join(dataDir, 'secrets.json');
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as Secrets;
    expect(printed).not.toContain(secrets.postgres);
    expect(printed).not.toContain(secrets.nats.operator);

    // NATS: no anonymous user, no guessing; the operator's own password is the control.
    const natsServers = `nats://127.0.0.1:${natsPort}`;
    const refusal = (options: object) =>
      connect({ servers: natsServers, reconnect: false, ...options }).then(
        async (nc) => {
          await nc.close();
          return 'connected';
        },
        (error: Error) => error.message,
      );
    await expect(refusal({})).resolves.toMatch(/authorization violation/i);
    await expect(refusal({ user: 'operator', pass: `${secrets.nats.operator}x` })).resolves.toMatch(
      /authorization violation/i,
    );
    await expect(refusal({ user: 'operator', pass: secrets.nats.operator })).resolves.toBe(
      'connected',
    );

    // PostgreSQL: the password, by SCRAM, or nothing.
    const database = (password?: string) => {
      const client = new Client({
        host: '127.0.0.1',
        port: pgPort,
        user: 'postgres',
        database: 'tollgate',
        password,
        connectionTimeoutMillis: 5_000,
      });
      return client.connect().then(
        async () => {
          const method = await client.query<{ method: string }>(
            "SELECT DISTINCT auth_method AS method FROM pg_hba_file_rules WHERE type <> 'local'",
          );
          await client.end();
          return method.rows.map((row) => row.method).join(',');
        },
        (error: Error) => error.message,
      );
    };
    await expect(database()).resolves.toMatch(/password/i);
    await expect(database('not-the-password-at-all')).resolves.toMatch(
      /password authentication failed/,
    );
    await expect(database(secrets.postgres)).resolves.toBe('scram-sha-256');

    // Every listening socket of the sandbox and the processes it started: loopback only.
    const listeners = listenersOf(processTree(sandbox.child.pid!));
    // The page, three stand-ins, four services, NATS and PostgreSQL at least.
    expect(listeners.length).toBeGreaterThanOrEqual(10);
    expect(listeners.map((l) => l.address).filter((a) => !a.startsWith('127.0.0.1:'))).toEqual([]);
    expect(listeners.map((l) => l.address)).toEqual(
      expect.arrayContaining([`127.0.0.1:${natsPort}`, `127.0.0.1:${pgPort}`]),
    );

    // Each service on its own NATS user still carries a conversation through.
    const said = await fetch(`${sandbox.url}/api/say`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'slack', as: 'alice', text: '!write_note {"text": "hi"}' }),
    });
    expect(await said.json()).toEqual({ status: 200 });
    await waitFor(
      'the prompt on the Slack panel',
      async () =>
        (await (await fetch(`${sandbox!.url}/panels/slack?as=alice`)).text()).includes(
          '>Approve once</button>',
        ),
      { timeoutMs: 20_000 },
    );
    expect(await sandbox.stop('SIGINT')).toEqual({ code: 0, signal: null });
    sandbox = undefined;

    // Nor did any password reach a log: nats-server's, PostgreSQL's or a service's.
    const logs = readdirSync(join(dataDir, 'logs')).map((name) => ({
      name,
      text: readFileSync(join(dataDir, 'logs', name), 'utf8'),
    }));
    expect(logs.map((log) => log.name)).toEqual(
      expect.arrayContaining(['nats-server.log', 'postgres.log']),
    );
    const passwords = [secrets.postgres, ...Object.values(secrets.nats)];
    expect(logs.filter((log) => passwords.some((password) => log.text.includes(password)))).toEqual(
      [],
    );
  });

  it('X15 a database an earlier npm start made with trust (and its lost password) is moved to a fresh password before it listens, saying so', async () => {
    const hba = join(dataDir, 'pg', 'pg_hba.conf');
    writeFileSync(hba, 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    const before = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Secrets;
    rmSync(join(dataDir, 'secrets.json'));
    sandbox = await startSandbox(
      { TOLLGATE_DATA_DIR: dataDir, TOLLGATE_DRAIN_MS: '3000', LOG_LEVEL: 'warn' },
      { readyWithinMs: 90_000 },
    );
    const printed = sandbox.output();
    expect(printed).toMatch(/let anyone on this machine in\s+without a password \(trust\)/);
    expect(readFileSync(hba, 'utf8')).not.toMatch(/trust$/m);
    const after = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Secrets;
    expect(after.postgres).not.toBe(before.postgres);
    const pgPort = Number(/PostgreSQL: embedded, on 127\.0\.0\.1:(\d+)/.exec(printed)?.[1]);
    const attempt = (password?: string) => {
      const client = new Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password });
      return client.connect().then(
        () => client.end().then(() => 'connected'),
        (error: Error) => error.message,
      );
    };
    await expect(attempt()).resolves.toMatch(/password/i);
    await expect(attempt(before.postgres)).resolves.toMatch(/password authentication failed/);
    await expect(attempt(after.postgres)).resolves.toBe('connected');
    expect(await sandbox.stop('SIGINT')).toEqual({ code: 0, signal: null });
    sandbox = undefined;
  });
});
