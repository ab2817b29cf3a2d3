import type { AddressInfo } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { signSlackRequest } from '@tollgate/platform-standins';
import { streamNames } from '@tollgate/protocol';
import { MetricsAccess, MetricsService, ReadinessService } from '@tollgate/service-runtime';
import pino from 'pino';
import { McpSessions } from '../../apps/mcp-gateway/src/transport/mcp-sessions';
import { createHttpServer } from '../../apps/mcp-gateway/src/transport/http.server';
import { createTestSchema, type TestSchema } from '../support/database';
import { connectTestNats, deleteStreams, TEST_NATS_URL } from '../support/nats';
import { startService, type ServiceProcess } from '../support/service-process';
import { uniqueToken } from '../support/unique';

const SIGNING_SECRET = 'x17-slack-signing-secret';
const METRICS_TOKEN = 'x17-metrics-token-long-enough';

/**
 * X17 (process): the edges of a built binding, the port a chat platform reaches. `/metrics`
 * answers only a scrape with its token; a request correctly signed with the app's secret but
 * naming a workspace the deployment does not serve is refused and publishes nothing.
 */
describe('X17 — the edges of a built binding', () => {
  const prefix = uniqueToken('x17');
  let schema: TestSchema;
  let binding: ServiceProcess;
  let nc: NatsConnection;

  beforeAll(async () => {
    schema = createTestSchema('x17');
    binding = await startService('slack-binding', {
      NATS_URL: TEST_NATS_URL,
      DATABASE_URL: schema.url,
      DATABASE_SCHEMA: schema.schema,
      TOLLGATE_SUBJECT_PREFIX: prefix,
      SLACK_BOT_TOKEN: 'xoxb-x17',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: 'http://127.0.0.1:1/api/',
      SLACK_ALLOWED_TEAM_IDS: 'TSERVED1',
      SLACK_ALLOWED_APP_IDS: 'AOURS1',
      TOLLGATE_METRICS_TOKEN: METRICS_TOKEN,
      TOLLGATE_DRAIN_MS: '500',
    });
    await binding.waitUntilReady();
    nc = await connectTestNats();
  });

  afterAll(async () => {
    await binding?.stop('SIGTERM');
    if (nc) {
      await deleteStreams(nc, prefix);
      await nc.close();
    }
    await schema?.drop();
  });

  it('X17 /metrics needs its token: none 401, a wrong one 403, the right one the figures', async () => {
    const bare = await fetch(binding.url('/metrics'));
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ error: 'metrics_token_required' });
    const wrong = await fetch(binding.url('/metrics'), {
      headers: { authorization: `Bearer ${METRICS_TOKEN}-not` },
    });
    expect(wrong.status).toBe(403);
    const right = await fetch(binding.url('/metrics'), {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('tollgate_inbound_refused_total');
    expect(binding.output()).not.toContain(METRICS_TOKEN);
  });

  it('X17 a signed Slack event from a workspace or app not served gets 401 and publishes nothing; a served one is taken', async () => {
    const send = async (team: string, app: string, text: string) => {
      const body = JSON.stringify({
        type: 'event_callback',
        team_id: team,
        api_app_id: app,
        event_id: uniqueToken('Ev'),
        event: {
          type: 'message',
          channel: 'D0X17',
          channel_type: 'im',
          user: 'U_X17',
          text,
          ts: `${Date.now() / 1000}`,
        },
      });
      return fetch(binding.url('/slack/events'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signSlackRequest(SIGNING_SECRET, body) },
        body,
      });
    };
    const stranger = await send('TSTRANGER', 'AOURS1', 'from another workspace');
    expect(stranger.status).toBe(401);
    expect(await stranger.json()).toMatchObject({ reason: 'team_not_allowed' });
    const otherApp = await send('TSERVED1', 'AOTHER1', 'from another app');
    expect(otherApp.status).toBe(401);
    expect(await otherApp.json()).toMatchObject({ reason: 'app_not_allowed' });

    const jsm = await jetstreamManager(nc);
    const commands = streamNames(prefix).commands;
    expect((await jsm.streams.info(commands)).state.messages).toBe(0);
    const served = await send('TSERVED1', 'AOURS1', 'hello');
    expect(served.status).toBe(200);
    expect((await jsm.streams.info(commands)).state.messages).toBe(1);

    const metrics = await fetch(binding.url('/metrics'), {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(await metrics.text()).toMatch(
      /tollgate_inbound_refused_total\{endpoint="[^"]+",reason="team_not_allowed"\} 1/,
    );
  });

  it("X17 the MCP gateway's own /metrics keeps the same rule", async () => {
    const server = createHttpServer(
      new McpSessions(
        () => {
          throw new Error('no MCP session in this test');
        },
        { idleMs: 60_000, max: 1 },
      ),
      new ReadinessService(),
      new MetricsService(),
      pino({ level: 'silent' }),
      new MetricsAccess(METRICS_TOKEN),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      const scraped = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('tollgate_');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
