import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { NATS_ROLES, passwordVariable, roleInboxPrefix, type NatsRole } from '@tollgate/messaging';
import {
  approvalApiConsumer,
  bindingConsumer,
  sessionServiceConsumer,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import { createTestSchema, type TestSchema } from '../support/database';
import { OwnNatsServer } from '../support/own-nats-server';
import { startService, type ServiceProcess } from '../support/service-process';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

const ROOT = join(__dirname, '..', '..');
const raw = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

interface Ran {
  code: number;
  output: string;
}

function node(script: string, args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'scripts', script), ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/**
 * X11 (process): only the operator provisions. A private nats-server runs the generated
 * configuration; each right issue 19 abused is tried with the service's own credentials
 * (create-or-update of a durable with `headers_only`, the first STREAM.CREATE with a
 * `republish`, STREAM.INFO with `subjects_filter`), and the built services show they create
 * nothing, wait for `npm run provision`, and refuse to become ready on a drifted field,
 * naming it.
 */
describe('X11 — only the operator provisions', () => {
  const prefix = uniqueToken('x11').slice(0, 20);
  const subjects = new Subjects(prefix);
  const streams = streamNames(prefix);
  const passwords = new Map<NatsRole, string>();
  const clients: NatsConnection[] = [];
  const services: ServiceProcess[] = [];
  const schemas: TestSchema[] = [];
  let dir: string;
  let server: OwnNatsServer;
  let operator: JetStreamManager;

  const violation = (subject: string) => `Permissions Violation for Publish to "${subject}"`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-x11-'));
    const configFile = join(dir, 'nats-server.conf');
    await node('nats-config.mjs', ['--prefix', prefix, '--out', configFile], {});
    const { output } = await node('nats-config.mjs', ['--passwords'], {});
    const env: Record<string, string> = {};
    for (const line of output.trim().split('\n')) {
      const [name, value] = line.split('=') as [string, string];
      if (value) env[name] = value;
    }
    for (const role of NATS_ROLES) passwords.set(role, env[passwordVariable(role)]);
    server = await OwnNatsServer.start({ configFile, env });
    operator = await jetstreamManager(await as('operator'));
  });

  afterAll(async () => {
    await Promise.all(services.map((child) => child.stop('SIGKILL')));
    await Promise.all(clients.map((nc) => nc.close().catch(() => undefined)));
    await server?.dispose();
    await Promise.all(schemas.map((schema) => schema.drop()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function as(role: NatsRole): Promise<NatsConnection> {
    const nc = (await connect({
      servers: server.url,
      user: role,
      pass: passwords.get(role)!,
      inboxPrefix: roleInboxPrefix(prefix, role),
    })) as NatsConnection;
    clients.push(nc);
    return nc;
  }

  function operatorEnv(): Record<string, string> {
    return {
      NATS_URL: server.url,
      NATS_USER: 'operator',
      NATS_PASSWORD: passwords.get('operator')!,
      TOLLGATE_SUBJECT_PREFIX: prefix,
      LOG_LEVEL: 'warn',
    };
  }

  async function start(service: 'slack-binding' | 'session-service'): Promise<ServiceProcess> {
    const schema = createTestSchema('x11');
    schemas.push(schema);
    const child = await startService(service, {
      NATS_URL: server.url,
      NATS_USER: service,
      NATS_PASSWORD: passwords.get(service)!,
      TOLLGATE_SUBJECT_PREFIX: prefix,
      DATABASE_URL: schema.url,
      DATABASE_SCHEMA: schema.schema,
      SLACK_BOT_TOKEN: 'xoxb-x11',
      SLACK_SIGNING_SECRET: 'x11-signing-secret',
      SLACK_API_URL: 'http://127.0.0.1:1/api/',
      TOLLGATE_DRAIN_MS: '500',
    });
    services.push(child);
    return child;
  }

  async function notReady(child: ServiceProcess, naming: RegExp): Promise<void> {
    await waitFor(`${naming.source} in the log of an unready service`, async () => {
      const response = await fetch(child.url('/health/ready')).catch(() => undefined);
      return response?.status === 503 && naming.test(child.output()) ? true : undefined;
    });
    expect(child.output()).not.toMatch(/Permissions Violation/);
  }

  it('X11 before provisioning a service cannot be first to create a stream (with a republish) or its durable, and is not ready, naming what is missing', async () => {
    const slack = await as('slack-binding');
    const create = `$JS.API.STREAM.CREATE.${streams.outputs}`;
    await expect(
      slack.request(
        create,
        raw({
          name: streams.outputs,
          subjects: [subjects.outputsAll()],
          republish: { src: '>', dest: `${roleInboxPrefix(prefix, 'slack-binding')}.stolen.>` },
        }),
        { timeout: 2_000 },
      ),
    ).rejects.toThrow(violation(create));
    const session = await as('session-service');
    const durable = sessionServiceConsumer(prefix);
    const consumerCreate = `$JS.API.CONSUMER.CREATE.${durable.stream}.${durable.durable}.${durable.filterSubject}`;
    await expect(
      session.request(consumerCreate, raw({ stream_name: durable.stream, config: {} })),
    ).rejects.toThrow(violation(consumerCreate));
    expect(await operator.streams.names().next()).toEqual([]);

    const binding = await start('slack-binding');
    await notReady(binding, new RegExp(`consumer ${streams.outputs}/slack-binding does not exist`));
    expect(await operator.streams.names().next()).toEqual([]);

    // The operator provisions; the waiting binding becomes ready without a restart.
    const provisioned = await node('provision.mjs', [], operatorEnv());
    expect(provisioned.code).toBe(0);
    await binding.waitUntilReady(15_000);
    const names = await operator.streams.names().next();
    expect([...names].sort()).toEqual(Object.values(streams).sort());
    for (const stream of Object.values(streams)) {
      const info = await operator.streams.info(stream);
      expect(info.config.max_bytes).toBe(1024 ** 3);
      expect(info.config.discard).toBe(stream === streams.deadLetters ? 'old' : 'new');
    }
    const metrics = await (await fetch(binding.url('/metrics'))).text();
    expect(metrics).not.toContain('tollgate_stream_bytes{');
  });

  it.each([
    ['session-service', sessionServiceConsumer],
    ['approval-api', approvalApiConsumer],
    ['slack-binding', (p: string) => bindingConsumer(p, 'slack')],
  ] as const)(
    'X11 %s cannot rewrite its own durable (headers_only, inactive_threshold): CONSUMER.CREATE and DURABLE.CREATE are refused',
    async (role, definition) => {
      const nc = await as(role);
      const durable = definition(prefix);
      const before = await operator.consumers.info(durable.stream, durable.durable);
      const config = {
        durable_name: durable.durable,
        filter_subject: durable.filterSubject,
        ack_policy: 'explicit',
        deliver_policy: 'all',
        headers_only: true,
        inactive_threshold: 1_000_000_000,
      };
      const create = `$JS.API.CONSUMER.CREATE.${durable.stream}.${durable.durable}.${durable.filterSubject}`;
      const legacy = `$JS.API.CONSUMER.DURABLE.CREATE.${durable.stream}.${durable.durable}`;
      for (const subject of [create, legacy]) {
        await expect(
          nc.request(subject, raw({ stream_name: durable.stream, config }), { timeout: 2_000 }),
        ).rejects.toThrow(violation(subject));
      }
      const after = await operator.consumers.info(durable.stream, durable.durable);
      expect(after.config).toEqual(before.config);
      expect(after.config.headers_only).toBeFalsy();
    },
  );

  it("X11 a binding cannot list another platform's pending calls: STREAM.INFO with subjects_filter is refused", async () => {
    const nc = await as('discord-binding');
    for (const stream of Object.values(streams)) {
      const info = `$JS.API.STREAM.INFO.${stream}`;
      await expect(
        nc.request(info, raw({ subjects_filter: subjects.outputFilter('slack') }), {
          timeout: 2_000,
        }),
      ).rejects.toThrow(violation(info));
    }
  });

  it('X11 a drifted durable is reported by npm run provision and keeps a service from becoming ready, naming the field; the session-service gauges stream sizes', async () => {
    // What a holder of the operator's credentials (or the old self-provisioning) could do:
    // CONSUMER.CREATE is create-or-update, so the slack durable becomes headers_only.
    const durable = bindingConsumer(prefix, 'slack');
    const current = await operator.consumers.info(durable.stream, durable.durable);
    const rewrite = await (
      await as('operator')
    ).request(
      `$JS.API.CONSUMER.CREATE.${durable.stream}.${durable.durable}.${durable.filterSubject}`,
      raw({ stream_name: durable.stream, config: { ...current.config, headers_only: true } }),
      { timeout: 2_000 },
    );
    expect(rewrite.json<{ error?: unknown }>().error).toBeUndefined();
    expect(
      (await operator.consumers.info(durable.stream, durable.durable)).config.headers_only,
    ).toBe(true);

    const report = await node('provision.mjs', [], operatorEnv());
    expect(report.code).toBe(2);
    expect(report.output).toContain(
      `consumer ${durable.stream}/slack-binding differs in headers_only`,
    );

    const binding = await start('slack-binding');
    await notReady(binding, /slack-binding differs in headers_only \(wanted unset, found true\)/);

    const session = await start('session-service');
    await session.waitUntilReady(15_000);
    const metrics = await (await fetch(session.url('/metrics'))).text();
    expect(metrics).toContain(
      `tollgate_stream_max_bytes{stream="${streams.outputs}"} ${1024 ** 3}`,
    );
    expect(metrics).toMatch(
      new RegExp(`tollgate_stream_bytes\\{stream="${streams.commands}"\\} \\d+`),
    );
  });
});
