import { createTestSchema, type TestSchema } from '../support/database';
import { connectTestNats, deleteStreams, TEST_NATS_URL } from '../support/nats';
import { type ServiceName, startService } from '../support/service-process';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';
import { OwnNatsServer } from '../support/own-nats-server';

/** Dummy platform settings: enough for each binding's config to validate. */
const PLATFORM_ENV: Record<ServiceName, Record<string, string>> = {
  'session-service': {},
  'slack-binding': { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'signing-secret' },
  'discord-binding': {
    DISCORD_BOT_TOKEN: 'discord-token',
    DISCORD_PUBLIC_KEY: 'ab'.repeat(32),
    DISCORD_APPLICATION_ID: '123456789',
  },
  'mattermost-binding': {
    MATTERMOST_URL: 'http://127.0.0.1:1',
    MATTERMOST_TOKEN: 'mm-token',
    MATTERMOST_ACTION_SECRET: 'an-action-secret-of-length',
    MATTERMOST_COMMAND_TOKEN: 'command-token',
    MATTERMOST_PUBLIC_URL: 'http://127.0.0.1:2',
  },
  'approval-api': {},
};

const SERVICES = Object.keys(PLATFORM_ENV) as ServiceName[];
const DRAIN_MS = 2_000;

describe('every service boots, answers health, and stops cleanly (process)', () => {
  const prefix = uniqueToken('boot');
  const schemas: TestSchema[] = [];

  afterAll(async () => {
    const nc = await connectTestNats();
    await deleteStreams(nc, prefix);
    await nc.close();
    await Promise.all(schemas.map((s) => s.drop()));
  });

  function env(service: ServiceName, schema: TestSchema, extra: Record<string, string> = {}) {
    return {
      NATS_URL: TEST_NATS_URL,
      DATABASE_URL: schema.url,
      DATABASE_SCHEMA: schema.schema,
      TOLLGATE_SUBJECT_PREFIX: prefix,
      TOLLGATE_DRAIN_MS: String(DRAIN_MS),
      ...PLATFORM_ENV[service],
      ...extra,
    };
  }

  it.each(SERVICES)(
    '%s is ready within 5 s and exits 0 on SIGTERM within the drain deadline',
    async (service) => {
      const schema = createTestSchema(service.replace(/-/g, '_'));
      schemas.push(schema);
      const started = Date.now();
      const child = await startService(service, env(service, schema));
      await child.waitUntilReady(5_000);
      expect(Date.now() - started).toBeLessThan(5_000);

      const ready = await fetch(child.url('/health/ready'));
      const body = (await ready.json()) as { status: string; checks: Record<string, boolean> };
      expect(body.status).toBe('ready');
      expect(body.checks).toMatchObject({ nats: true, streams: true, database: true });
      expect((await fetch(child.url('/health/live'))).status).toBe(200);
      const metrics = await (await fetch(child.url('/metrics'))).text();
      expect(metrics).toContain('tollgate_process_cpu_user_seconds_total');

      const stopping = Date.now();
      const exit = await child.stop('SIGTERM');
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - stopping).toBeLessThan(DRAIN_MS);
      // Secrets never reach the log.
      for (const value of Object.values(PLATFORM_ENV[service])) {
        if (/token|secret/i.test(value)) expect(child.output()).not.toContain(value);
      }
    },
  );

  it.each([
    ['missing', undefined],
    ['malformed', 'mysql://root@127.0.0.1/app'],
  ])('exits non-zero naming DATABASE_URL when it is %s', async (_case, value) => {
    const child = await startService('session-service', {
      NATS_URL: TEST_NATS_URL,
      TOLLGATE_SUBJECT_PREFIX: prefix,
      DATABASE_URL: value,
    });
    const exit = await child.exited();
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(child.output()).toContain('DATABASE_URL');
  });

  it('names each missing platform variable of a binding', async () => {
    const schema = createTestSchema('slackmissing');
    const child = await startService('slack-binding', {
      ...env('slack-binding', schema),
      SLACK_SIGNING_SECRET: undefined,
    });
    expect((await child.exited()).code).toBe(1);
    expect(child.output()).toContain('SLACK_SIGNING_SECRET');
  });

  it('readiness follows NATS going away and coming back, without restarting the service', async () => {
    const nats = await OwnNatsServer.start();
    const schema = createTestSchema('natsflap');
    schemas.push(schema);
    try {
      const child = await startService('session-service', {
        ...env('session-service', schema),
        NATS_URL: nats.url,
      });
      await child.waitUntilReady();
      await nats.stop();
      await waitFor('readiness to turn 503', async () => {
        const response = await fetch(child.url('/health/ready'));
        return response.status === 503 ? true : undefined;
      });
      expect((await fetch(child.url('/health/live'))).status).toBe(200);
      await nats.restart();
      await child.waitUntilReady(15_000);
      expect(child.child.exitCode).toBeNull();
      expect((await child.stop()).code).toBe(0);
    } finally {
      await nats.dispose();
    }
  });
});
