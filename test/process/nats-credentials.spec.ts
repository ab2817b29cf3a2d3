import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { roleInboxPrefix, type NatsRole } from '@tollgate/messaging';
import { encodeMessage, streamNames, Subjects } from '@tollgate/protocol';
import { freshConversation, join as joinCommand } from '../support/commands';
import { createTestSchema, type TestSchema } from '../support/database';
import { freePort } from '../support/free-port';
import { OwnNatsServer } from '../support/own-nats-server';
import { startService, type ServiceName } from '../support/service-process';
import { uniqueToken } from '../support/unique';

const ROOT = join(__dirname, '..', '..');
const CONFIG_SCRIPT = join(ROOT, 'scripts', 'nats-config.mjs');
const START_SCRIPT = join(ROOT, 'nats', 'start-nats.sh');
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const run = promisify(execFile);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function runFile(file: string, args: string[], env: Record<string, string>): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(file, args, {
      env: { PATH: process.env.PATH, ...env },
      timeout: 20_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

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

/** Fresh safe passwords for a configuration, as `nats:config --passwords` prints them. */
async function passwordsFor(args: string[]): Promise<Record<string, string>> {
  const { stdout } = await runFile(process.execPath, [CONFIG_SCRIPT, ...args, '--passwords'], {});
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  );
}

/**
 * X9 (process): the attack of issue 19 — an empty `NATS_PASSWORD_OPERATOR` opens the operator —
 * against a private nats-server started with the generated configuration, once directly (it
 * works: that is the hole) and once through nats/start-nats.sh, as Compose starts it (refused).
 */
describe('X9 — no empty or default credential', () => {
  const prefix = uniqueToken('x9').slice(0, 20);
  const subjects = new Subjects(prefix);
  let dir: string;
  const servers: OwnNatsServer[] = [];
  const clients: NatsConnection[] = [];
  const schemas: TestSchema[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-x9-'));
  });

  afterAll(async () => {
    await Promise.all(clients.map((nc) => nc.close().catch(() => undefined)));
    await Promise.all(servers.map((server) => server.dispose()));
    await Promise.all(schemas.map((schema) => schema.drop()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function render(name: string, args: string[], env: Record<string, string> = {}) {
    const out = join(dir, name);
    const ran = await runFile(
      process.execPath,
      [CONFIG_SCRIPT, '--prefix', prefix, ...args, '--out', out],
      env,
    );
    return { out, ran };
  }

  it('X9 nats:config --roles renders only the deployed services (and the operator)', async () => {
    const { out, ran } = await render('roles.conf', ['--roles', 'slack-binding']);
    expect(ran.code).toBe(0);
    const text = await readFile(out, 'utf8');
    const users = [...text.matchAll(/^\s+user: "([^"]+)"$/gm)].map((m) => m[1]);
    expect(users).toEqual(['slack-binding', 'operator']);
    expect(text).not.toContain('NATS_PASSWORD_DISCORD_BINDING');

    // A service left out has no user: its variable, even defined and empty, opens nothing.
    const passwords = await passwordsFor(['--roles', 'slack-binding']);
    expect(Object.keys(passwords)).toEqual([
      'NATS_PASSWORD_SLACK_BINDING',
      'NATS_PASSWORD_OPERATOR',
    ]);
    const server = await OwnNatsServer.start({
      configFile: out,
      env: { ...passwords, NATS_PASSWORD_DISCORD_BINDING: '' },
      throughStartScript: true,
    });
    servers.push(server);
    await expect(
      connect({ servers: server.url, user: 'discord-binding', pass: '' }),
    ).rejects.toThrow(/Authorization Violation/);
    const slack = await connect({
      servers: server.url,
      user: 'slack-binding',
      pass: passwords.NATS_PASSWORD_SLACK_BINDING,
    });
    clients.push(slack);
    expect(slack.isClosed()).toBe(false);

    const refused = await runFile(
      process.execPath,
      [CONFIG_SCRIPT, '--roles', 'slack-binding,nobody', '--out', '-'],
      {},
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unknown: nobody');
  });

  it.each([
    ['empty', ''],
    ['weak', 'short1'],
    ['not of the safe shape', `${'a'.repeat(30)}-1`],
  ])(
    'X9 nats:config refuses a password in its environment that is %s, and writes nothing',
    async (_case, value) => {
      const passwords = await passwordsFor([]);
      const { out, ran } = await render(`refused-${_case.length}.conf`, [], {
        ...passwords,
        NATS_PASSWORD_OPERATOR: value,
      });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain('NATS_PASSWORD_OPERATOR');
      expect(ran.stderr).toContain('nothing written');
      if (value !== '') expect(ran.stderr).not.toContain(value);
      expect(existsSync(out)).toBe(false);
    },
  );

  it('X9 an empty operator password: nats-server alone lets "" in; through start-nats.sh it never starts', async () => {
    const { out } = await render('all.conf', []);
    const passwords = await passwordsFor([]);
    const env = { ...passwords, NATS_PASSWORD_OPERATOR: '' };

    // The hole, shown on nats-server itself: a defined-but-empty variable is the password "".
    const bare = await OwnNatsServer.start({ configFile: out, env });
    servers.push(bare);
    const intruder = await connect({
      servers: bare.url,
      user: 'operator',
      pass: '',
      inboxPrefix: roleInboxPrefix(prefix, 'operator'),
    });
    clients.push(intruder);
    await expect(jetstreamManager(intruder)).resolves.toBeDefined();
    await bare.dispose();

    // Compose starts it through the script, which refuses before nats-server runs.
    for (const [label, value] of [
      ['empty', ''],
      ['weak', 'operator'],
    ] as const) {
      const port = await freePort();
      const ran = await runFile(
        '/bin/sh',
        [START_SCRIPT, '-c', out, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
        { ...passwords, NATS_PASSWORD_OPERATOR: value, NATS_SERVER_BIN: NATS_SERVER },
      );
      expect({ label, code: ran.code }).toEqual({ label, code: 78 });
      expect(ran.stderr).toContain('NATS_PASSWORD_OPERATOR');
      expect(ran.stderr).toContain('nats-server not started');
      expect(await accepts(port)).toBe(false);
    }
    const unset = Object.fromEntries(
      Object.entries(passwords).filter(([name]) => name !== 'NATS_PASSWORD_OPERATOR'),
    );
    const port = await freePort();
    const ran = await runFile('/bin/sh', [START_SCRIPT, '-c', out, '-p', String(port)], {
      ...unset,
      NATS_SERVER_BIN: NATS_SERVER,
    });
    expect(ran.code).toBe(78);
    expect(ran.stderr).toContain('NATS_PASSWORD_OPERATOR is not set');
  });

  it('X9 with safe passwords the script starts nats-server, and "" is refused for every role', async () => {
    const { out } = await render('safe.conf', []);
    const passwords = await passwordsFor([]);
    const server = await OwnNatsServer.start({
      configFile: out,
      env: passwords,
      throughStartScript: true,
    });
    servers.push(server);
    for (const role of ['operator', 'session-service', 'slack-binding'] as NatsRole[]) {
      await expect(connect({ servers: server.url, user: role, pass: '' })).rejects.toThrow(
        /Authorization Violation/,
      );
    }
    // The operator's real password still works: the script only refused the weak ones.
    const operator = await connect({
      servers: server.url,
      user: 'operator',
      pass: passwords.NATS_PASSWORD_OPERATOR,
      inboxPrefix: roleInboxPrefix(prefix, 'operator'),
    });
    clients.push(operator);
    const jsm = await jetstreamManager(operator);
    await jsm.streams.add({ name: streamNames(prefix).commands, subjects: [`${prefix}.cmd.>`] });
    const join = joinCommand(freshConversation('slack'));
    await jetstream(operator).publish(
      subjects.command('slack', join.sessionId, 'join'),
      encodeMessage(join),
    );
    expect((await jsm.streams.info(streamNames(prefix).commands)).state.messages).toBe(1);
  });

  const SHORT: [ServiceName, Record<string, string>, string][] = [
    [
      'session-service',
      { NATS_USER: 'session-service', NATS_PASSWORD: 'hunter2hunter2' },
      'NATS_PASSWORD',
    ],
    [
      'session-service',
      { DATABASE_URL: 'postgres://postgres:hunter2hunter2@127.0.0.1:5432/test' },
      'DATABASE_URL',
    ],
    ['slack-binding', { SLACK_SIGNING_SECRET: 'changeme' }, 'SLACK_SIGNING_SECRET'],
    ['mattermost-binding', { MATTERMOST_COMMAND_TOKEN: 'changeme' }, 'MATTERMOST_COMMAND_TOKEN'],
    ['mattermost-binding', { MATTERMOST_ACTION_SECRET: 'changeme' }, 'MATTERMOST_ACTION_SECRET'],
  ];

  it.each(SHORT)(
    'X9 %s refuses to start on a credential shorter than its minimum (%j)',
    async (service, short, variable) => {
      const schema = createTestSchema('x9short');
      schemas.push(schema);
      const child = await startService(service, {
        NATS_URL: 'nats://127.0.0.1:1',
        DATABASE_URL: schema.url,
        DATABASE_SCHEMA: schema.schema,
        TOLLGATE_SUBJECT_PREFIX: prefix,
        SLACK_BOT_TOKEN: 'xoxb-x9',
        SLACK_SIGNING_SECRET: 'x9-signing-secret-long-enough',
        MATTERMOST_URL: 'http://127.0.0.1:1',
        MATTERMOST_TOKEN: 'x9-token',
        MATTERMOST_ACTION_SECRET: 'x9-action-secret-long-enough',
        MATTERMOST_COMMAND_TOKEN: 'x9-command-token-long',
        MATTERMOST_PUBLIC_URL: 'http://127.0.0.1:2',
        ...short,
      });
      expect((await child.exited()).code).toBe(1);
      expect(child.output()).toContain(variable);
      expect(child.output()).toMatch(/at least \d+ characters/);
      expect(child.output()).not.toContain(short[variable]);
    },
  );
});
