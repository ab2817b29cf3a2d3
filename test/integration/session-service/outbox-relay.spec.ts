import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { JetStreamPublisher, provision } from '@tollgate/messaging';
import { streamDefinitions } from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { SESSION_SERVICE_MIGRATIONS } from '@tollgate/session-read-model';
import { OutboxRelay } from '../../../apps/session-service/src/outbox/outbox-relay.service';
import { prepareSchemaAndMigrate, createDataSource } from '@tollgate/persistence';
import { createTestSchema, withClient } from '../../support/database';
import { OwnNatsServer } from '../../support/own-nats-server';
import { uniqueToken } from '../../support/unique';
import { waitFor } from '../../support/wait-for';

const logger = pino({ level: 'silent' });

/**
 * The relay against a private nats-server that the test stops and restarts: rows committed
 * while NATS is away wait in the outbox and are published once it is back, each once.
 */
describe('outbox relay', () => {
  const schema = createTestSchema('relay');
  const prefix = uniqueToken('relay');
  const channel = `outbox_${schema.schema}`;
  let nats: OwnNatsServer;
  let nc: NatsConnection;
  let dataSource: DataSource;
  let relay: OutboxRelay;

  beforeAll(async () => {
    nats = await OwnNatsServer.start();
    nc = (await connect({
      servers: nats.url,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    })) as NatsConnection;
    const streams = streamDefinitions(prefix);
    await provision(
      await jetstreamManager(nc),
      { streams: [streams.outputs], consumers: [] },
      logger,
    );
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: SESSION_SERVICE_MIGRATIONS,
      applicationName: 'relay-test',
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, logger);
    const publisher = new JetStreamPublisher(jetstream(nc, { timeout: 1_000 }));
    relay = new OutboxRelay({
      dataSource,
      databaseUrl: schema.url,
      channel,
      publisher: () => publisher,
      logger,
      pollIntervalMs: 60_000,
    });
    relay.start();
  });

  afterAll(async () => {
    await relay.stop();
    await dataSource.destroy();
    await nc.close();
    await nats.dispose();
    await schema.drop();
  });

  async function enqueue(ids: string[]): Promise<void> {
    await dataSource.transaction(async (manager) => {
      for (const id of ids) {
        await manager.query(
          `INSERT INTO outbox (id, session_id, subject, payload) VALUES ($1, 's', $2, $3)`,
          [id, `${prefix}.out.slack.s.text`, JSON.stringify({ id })],
        );
      }
      await manager.query(`SELECT pg_notify($1, '')`, [channel]);
    });
  }

  const unsent = () =>
    withClient(async (client) => {
      const result = await client.query<{ count: string }>(
        `SELECT count(*) FROM "${schema.schema}".outbox WHERE sent_at IS NULL`,
      );
      return Number(result.rows[0].count);
    });

  async function storedIds(): Promise<string[]> {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(streamDefinitions(prefix).outputs.name);
    const ids: string[] = [];
    for (
      let seq = info.state.first_seq;
      seq <= info.state.last_seq && info.state.messages > 0;
      seq += 1
    ) {
      const message = await jsm.streams.getMessage(streamDefinitions(prefix).outputs.name, { seq });
      if (message) ids.push(message.header.get('Nats-Msg-Id'));
    }
    return ids;
  }

  it('is woken by NOTIFY (polling is an hour away here) and publishes in order', async () => {
    await enqueue(['a:1:0', 'a:2:0', 'a:3:0']);
    await waitFor('the rows to be sent', async () => ((await unsent()) === 0 ? true : undefined));
    expect(await storedIds()).toEqual(['a:1:0', 'a:2:0', 'a:3:0']);
  });

  it('keeps rows while NATS is away and publishes each once when it is back', async () => {
    await nats.stop();
    await enqueue(['b:1:0', 'b:2:0']);
    await waitFor('a failed pass to leave the rows unsent', async () =>
      (await unsent()) === 2 ? true : undefined,
    );
    await nats.restart();
    // The relay retries on its own; a notify nudges it along sooner.
    await waitFor(
      'the rows to be sent after NATS returns',
      async () => {
        await dataSource.query(`SELECT pg_notify($1, '')`, [channel]);
        return (await unsent()) === 0 ? true : undefined;
      },
      { timeoutMs: 20_000 },
    );
    const ids = await storedIds();
    expect(ids.filter((id) => id.startsWith('b:'))).toEqual(['b:1:0', 'b:2:0']);
  });
});
