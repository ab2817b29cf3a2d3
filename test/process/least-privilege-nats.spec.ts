import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { NATS_ROLES, passwordVariable, roleInboxPrefix, type NatsRole } from '@tollgate/messaging';
import {
  bindingConsumer,
  deriveSessionId,
  encodeMessage,
  PLATFORMS,
  streamNames,
  Subjects,
  type Platform,
} from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { PlatformDriver } from '../contract/platform-driver';
import { alice, freshConversation, join as joinCommand, userMessage } from '../support/commands';
import { createTestSchema, type TestSchema } from '../support/database';
import { OwnNatsServer } from '../support/own-nats-server';
import { startService, type ServiceProcess } from '../support/service-process';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

const ROOT = join(__dirname, '..', '..');
const raw = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const run = promisify(execFile);

/**
 * (process) A private nats-server started with the configuration `npm run nats:config`
 * writes, the built services connecting with their own credentials, and raw clients trying
 * what each role must not do.
 */
describe('X1 — least-privilege NATS', () => {
  const prefix = uniqueToken('x1').slice(0, 24);
  const subjects = new Subjects(prefix);
  const streams = streamNames(prefix);
  const passwords = new Map<NatsRole, string>();
  const schemas: TestSchema[] = [];
  const services: ServiceProcess[] = [];
  const drivers = new Map<Platform, PlatformDriver>();
  const bindings = new Map<Platform, ServiceProcess>();
  const clients: NatsConnection[] = [];
  let dir: string;
  let server: OwnNatsServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-x1-'));
    const configFile = join(dir, 'nats-server.conf');
    const script = join(ROOT, 'scripts', 'nats-config.mjs');
    await run(process.execPath, [script, '--prefix', prefix, '--out', configFile]);
    const { stdout } = await run(process.execPath, [script, '--passwords']);
    const env: Record<string, string> = {};
    for (const line of stdout.trim().split('\n')) {
      const [name, value] = line.split('=') as [string, string];
      env[name] = value;
    }
    for (const role of NATS_ROLES) passwords.set(role, env[passwordVariable(role)]);
    server = await OwnNatsServer.start({ configFile, env });
    // Only the operator provisions (X11): the services check and create nothing.
    await run(process.execPath, [join(ROOT, 'scripts', 'provision.mjs')], {
      env: {
        PATH: process.env.PATH,
        NATS_URL: server.url,
        NATS_USER: 'operator',
        NATS_PASSWORD: passwords.get('operator')!,
        TOLLGATE_SUBJECT_PREFIX: prefix,
        LOG_LEVEL: 'warn',
      },
    });

    const credentials = (role: NatsRole) => ({
      NATS_URL: server.url,
      NATS_USER: role,
      NATS_PASSWORD: passwords.get(role)!,
      TOLLGATE_SUBJECT_PREFIX: prefix,
    });
    const schemaFor = (label: string) => {
      const schema = createTestSchema(label);
      schemas.push(schema);
      return { DATABASE_URL: schema.url, DATABASE_SCHEMA: schema.schema };
    };
    const starting: Promise<ServiceProcess>[] = [
      startService('session-service', {
        ...credentials('session-service'),
        ...schemaFor('x1ss'),
        TOLLGATE_DRAIN_MS: '1000',
      }),
    ];
    for (const platform of PLATFORMS) {
      const driver = CONTRACT_DRIVERS[platform]!();
      await driver.start();
      drivers.set(platform, driver);
      starting.push(
        startService(`${platform}-binding`, {
          ...credentials(`${platform}-binding`),
          ...schemaFor(`x1${platform}`),
          ...driver.bindingEnv(),
          TOLLGATE_DRAIN_MS: '1000',
        }).then((child) => {
          bindings.set(platform, child);
          return child;
        }),
      );
    }
    services.push(...(await Promise.all(starting)));
    await Promise.all(services.map((child) => child.waitUntilReady(20_000)));
  });

  afterAll(async () => {
    await Promise.all(clients.map((nc) => nc.close().catch(() => undefined)));
    await Promise.all(services.map((child) => child.stop('SIGKILL')));
    await Promise.all([...drivers.values()].map((driver) => driver.stop()));
    await server?.dispose();
    await Promise.all(schemas.map((schema) => schema.drop()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A raw client with a role's credentials and inbox, collecting the server's refusals. */
  async function connectAs(role: NatsRole): Promise<{ nc: NatsConnection; refusals: string[] }> {
    const nc = (await connect({
      servers: server.url,
      user: role,
      pass: passwords.get(role)!,
      inboxPrefix: roleInboxPrefix(prefix, role),
      name: `x1-${role}`,
    })) as NatsConnection;
    clients.push(nc);
    const refusals: string[] = [];
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'error') refusals.push(status.error.message);
      }
    })();
    return { nc, refusals };
  }

  const violation = (operation: 'Publish' | 'Subscription', subject: string) =>
    `Permissions Violation for ${operation} to "${subject}"`;

  it('X1 an anonymous connection is refused, and so is a wrong password', async () => {
    await expect(connect({ servers: server.url })).rejects.toThrow(/Authorization Violation/);
    await expect(
      connect({ servers: server.url, user: 'slack-binding', pass: 'not-its-password' }),
    ).rejects.toThrow(/Authorization Violation/);
  });

  it.each([...PLATFORMS])(
    'X1 every service works with its own credentials: a %s message is answered through the session-service',
    async (platform) => {
      const driver = drivers.get(platform)!;
      const conversation = driver.freshConversation();
      const response = await driver.say(
        bindings.get(platform)!.url(''),
        conversation,
        `hello from ${platform}`,
        alice,
      );
      expect(response.status).toBe(200);
      await waitFor(`the reply in ${platform}`, () =>
        driver
          .messagesIn(conversation)
          .find((m) => m.text.includes(`You said: hello from ${platform}`)),
      );
      for (const child of services) expect(child.output()).not.toMatch(/Permissions Violation/);
    },
  );

  it("X1 a binding's credentials publish its own platform's commands but not another platform's", async () => {
    const { nc, refusals } = await connectAs('slack-binding');
    const js = jetstream(nc);
    const own = joinCommand(freshConversation('slack'));
    await expect(
      js.publish(subjects.command('slack', own.sessionId, 'join'), encodeMessage(own), {
        msgID: own.id,
      }),
    ).resolves.toMatchObject({ stream: streams.commands });

    const discord = userMessage(freshConversation('discord'), '!write_note {"text":"x"}');
    const forged = subjects.command('discord', discord.sessionId, 'message');
    await expect(js.publish(forged, encodeMessage(discord), { msgID: discord.id })).rejects.toThrow(
      violation('Publish', forged),
    );
    expect(refusals).toContain(violation('Publish', forged));
  });

  it("X1 a binding's credentials cannot publish outputs, not even for its own platform", async () => {
    const { nc } = await connectAs('slack-binding');
    const js = jetstream(nc);
    for (const platform of PLATFORMS) {
      const subject = subjects.textOutput(platform, deriveSessionId(freshConversation(platform)));
      await expect(js.publish(subject, raw({}))).rejects.toThrow(violation('Publish', subject));
    }
  });

  it("X1 a binding's credentials cannot read another platform's outputs", async () => {
    const { nc, refusals } = await connectAs('slack-binding');
    const discordOutputs = subjects.outputFilter('discord');
    const discordInbox = `${roleInboxPrefix(prefix, 'discord-binding')}.>`;
    for (const subject of [discordOutputs, subjects.outputsAll(), '_INBOX.>', discordInbox]) {
      const subscription = nc.subscribe(subject);
      await expect(subscription.closed).resolves.toMatchObject({
        message: violation('Subscription', subject),
      });
    }

    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const discordDurable = bindingConsumer(prefix, 'discord');
    await expect(js.consumers.get(streams.outputs, discordDurable.durable)).rejects.toThrow(
      /Permissions Violation/,
    );
    const pull = `$JS.API.CONSUMER.MSG.NEXT.${streams.outputs}.${discordDurable.durable}`;
    await expect(nc.request(pull, raw({ batch: 1 }), { timeout: 2_000 })).rejects.toThrow(
      violation('Publish', pull),
    );
    await expect(
      jsm.consumers.add(streams.outputs, {
        durable_name: 'x1-eavesdropper',
        filter_subject: discordOutputs,
      }),
    ).rejects.toThrow(/Permissions Violation/);

    // Not even its own durable may it create or rewrite (X11: only the operator provisions).
    const slackDurable = bindingConsumer(prefix, 'slack');
    const create = `$JS.API.CONSUMER.CREATE.${streams.outputs}.${slackDurable.durable}.${slackDurable.filterSubject}`;
    await expect(
      nc.request(
        create,
        raw({
          stream_name: streams.outputs,
          config: {
            durable_name: slackDurable.durable,
            filter_subject: discordOutputs,
            ack_policy: 'explicit',
            deliver_policy: 'all',
          },
        }),
        { timeout: 2_000 },
      ),
    ).rejects.toThrow(violation('Publish', create));
    const operator = await jetstreamManager((await connectAs('operator')).nc);
    const info = await operator.consumers.info(streams.outputs, slackDurable.durable);
    expect(info.config.filter_subject).toBe(slackDurable.filterSubject);
    expect(refusals).toContain(violation('Publish', pull));
  });

  it.each([...NATS_ROLES])(
    'X1 the %s credentials cannot delete, purge or change a stream',
    async (role) => {
      const { nc } = await connectAs(role);
      const jsm = await jetstreamManager(nc);
      for (const stream of Object.values(streams)) {
        await expect(jsm.streams.delete(stream)).rejects.toThrow(
          violation('Publish', `$JS.API.STREAM.DELETE.${stream}`),
        );
        await expect(jsm.streams.purge(stream)).rejects.toThrow(
          violation('Publish', `$JS.API.STREAM.PURGE.${stream}`),
        );
        await expect(jsm.streams.update(stream, { max_msgs: 1 })).rejects.toThrow(
          /Permissions Violation/,
        );
      }
      const operator = await jetstreamManager((await connectAs('operator')).nc);
      for (const stream of Object.values(streams)) {
        await expect(operator.streams.info(stream)).resolves.toMatchObject({
          config: { name: stream },
        });
      }
    },
  );
});
