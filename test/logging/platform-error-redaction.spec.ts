import { Writable } from 'node:stream';
import { REST } from '@discordjs/rest';
import { WebClient } from '@slack/web-api';
import { createDataSource } from '@tollgate/persistence';
import { createLogger, PinoNestLogger, REDACTED } from '@tollgate/service-runtime';
import { Routes } from 'discord-api-types/v10';
import { MattermostClient } from '../../apps/mattermost-binding/src/platform/mattermost-client';
import { DiscordApiFake } from '@tollgate/platform-standins';
import { interactionToken } from '@tollgate/platform-standins';
import { MattermostApiFake } from '@tollgate/platform-standins';
import { SlackApiFake } from '@tollgate/platform-standins';
import { createTestSchema } from '../support/database';

/** A service logger writing into an array, one parsed line per entry. */
function capturedLogger(secrets: string[]) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger('x4-test', 'debug', { secrets, destination });
  return { logger, text: () => lines.join(''), lines };
}

async function failureOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('the call was expected to fail');
}

/**
 * (unit, real SDK errors) What @discordjs/rest, @slack/web-api and @mattermost/client put in
 * their errors — request URLs with tokens in them, headers, bodies — logged through the service
 * logger as the services log them, against each platform's fake answering 5xx.
 */
describe('X4 platform errors reach the log without their secrets', () => {
  it('X4 a Discord webhook failure logs its route but not the interaction token, even unconfigured', async () => {
    const fake = new DiscordApiFake();
    await fake.start();
    try {
      const token = interactionToken();
      fake.failNext('editOriginal', { status: 503 });
      const rest = new REST({ api: fake.apiUrl, version: '10', retries: 0 }).setToken(
        fake.botToken,
      );
      const error = await failureOf(() =>
        rest.patch(Routes.webhookMessage(fake.applicationId, token, '@original'), {
          body: { content: 'x' },
          auth: false,
        }),
      );
      expect(JSON.stringify(error)).toContain(token);

      // Only the bot token is configured: the interaction token is caught by its shape.
      const { logger, text } = capturedLogger([fake.botToken]);
      logger.error({ err: error }, 'a Discord interaction failed after its acknowledgement');
      logger.warn({ err: new Error('wrapped', { cause: error }) }, 'wrapped');
      new PinoNestLogger(logger).error(`failed: ${String((error as { url: string }).url)}`);
      expect(text()).not.toContain(token);
      expect(text()).toContain(`/webhooks/${fake.applicationId}/${REDACTED}`);
      expect(text()).toContain('503');
    } finally {
      await fake.stop();
    }
  });

  it('X4 a Discord bot call failure logs neither the bot token nor its Authorization header', async () => {
    const fake = new DiscordApiFake();
    await fake.start();
    try {
      fake.failNext('createMessage', { status: 503 });
      const rest = new REST({ api: fake.apiUrl, version: '10', retries: 0 }).setToken(
        fake.botToken,
      );
      const error = await failureOf(() =>
        rest.post(Routes.channelMessages('1300000000000000001'), { body: { content: 'x' } }),
      );
      const { logger, text } = capturedLogger([fake.botToken]);
      logger.error({ err: error, headers: { Authorization: `Bot ${fake.botToken}` } }, 'failed');
      expect(text()).not.toContain(fake.botToken);
      expect(text()).toContain('503');
    } finally {
      await fake.stop();
    }
  });

  it('X4 a Slack Web API failure logs no bot token', async () => {
    const fake = new SlackApiFake();
    await fake.start();
    try {
      fake.failNext('chat.postMessage', { status: 503 });
      const client = new WebClient(fake.botToken, {
        slackApiUrl: fake.apiUrl,
        retryConfig: { retries: 0 },
      });
      const error = await failureOf(() => client.chat.postMessage({ channel: 'C1', text: 'x' }));
      const { logger, text } = capturedLogger([fake.botToken]);
      logger.error({ err: error }, 'post failed');
      // A request error carries the transport's error; a token shaped like Slack's is caught
      // even when nobody configured it.
      const unconfigured = capturedLogger([]);
      unconfigured.logger.error(
        { err: error, note: `Authorization: Bearer ${fake.botToken}` },
        `token ${fake.botToken} refused`,
      );
      expect(text()).not.toContain(fake.botToken);
      expect(unconfigured.text()).not.toContain(fake.botToken);
      expect(text()).toContain('503');
    } finally {
      await fake.stop();
    }
  });

  it('X4 a Mattermost client failure logs no access token', async () => {
    const fake = new MattermostApiFake();
    await fake.start();
    try {
      fake.failNext('*', { status: 503 });
      const client = new MattermostClient({
        url: fake.apiUrl,
        token: fake.token,
        timeoutMs: 5_000,
      });
      const error = await failureOf(() =>
        client.createPost({ channel_id: 'c'.repeat(26), message: 'x' }),
      );
      const { logger, text } = capturedLogger([fake.token]);
      logger.error(
        { err: error, request: { headers: { Authorization: `Bearer ${fake.token}` } } },
        'post failed',
      );
      expect(text()).not.toContain(fake.token);
      expect(text()).toContain('503');
    } finally {
      await fake.stop();
    }
  });

  it('X4 a failed query logs its SQL but not its bound parameters', async () => {
    const schema = createTestSchema('x4params');
    const dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: [],
      applicationName: 'x4-test',
    });
    await dataSource.initialize();
    try {
      const token = interactionToken();
      const error = await failureOf(() =>
        dataSource.query(`INSERT INTO no_such_table (token) VALUES ($1)`, [token]),
      );
      expect(JSON.stringify(error)).toContain(token);
      const { logger, text } = capturedLogger([]);
      logger.warn({ err: error }, 'could not keep an interaction token');
      expect(text()).not.toContain(token);
      expect(text()).toContain('no_such_table');
      // The serializer leaves the caller's error as it was.
      expect((error as { parameters: unknown[] }).parameters).toEqual([token]);
    } finally {
      await dataSource.destroy();
      await schema.drop();
    }
  });
});
