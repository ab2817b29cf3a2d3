import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JetStreamPublisher, provision } from '@tollgate/messaging';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import {
  type Conversation,
  deriveSessionId,
  PROTOCOL_VERSION,
  streamDefinitions,
  Subjects,
  type TextOutput,
} from '@tollgate/protocol';
import { SESSION_SCHEMA_MIGRATIONS } from '@tollgate/session-read-model';
import { inSpan, startTelemetry, type Telemetry } from '@tollgate/telemetry';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { OutboxRelay } from '../../../apps/session-service/src/outbox/outbox-relay.service';
import { OutboxWriter } from '../../../apps/session-service/src/outbox/outbox-writer';
import { createTestSchema } from '../../support/database';
import { connectTestNats, deleteStreams } from '../../support/nats';
import { uniqueToken } from '../../support/unique';
import { waitFor } from '../../support/wait-for';

const logger = pino({ level: 'silent' });

/**
 * (integration) An output is queued in a decision's transaction and published later by the
 * relay: the row keeps the decision's traceparent, so the publish is in the turn's trace.
 */
describe('D7 the outbox carries the turn’s trace', () => {
  const exporter = new InMemorySpanExporter();
  const schema = createTestSchema('otrace');
  const prefix = uniqueToken('otrace');
  const subjects = new Subjects(prefix);
  const channel = `outbox_${schema.schema}`;
  let telemetry: Telemetry | undefined;
  let nc: NatsConnection;
  let dataSource: DataSource;
  let relay: OutboxRelay;

  beforeAll(async () => {
    telemetry = await startTelemetry(
      'session-service',
      {},
      { spanProcessors: [new SimpleSpanProcessor(exporter)] },
    );
    nc = await connectTestNats();
    await provision(
      await jetstreamManager(nc),
      { streams: [streamDefinitions(prefix).outputs], consumers: [] },
      logger,
    );
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: SESSION_SCHEMA_MIGRATIONS,
      applicationName: 'outbox-trace-test',
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, logger);
    const publisher = new JetStreamPublisher(jetstream(nc));
    relay = new OutboxRelay({
      dataSource,
      databaseUrl: schema.url,
      channel,
      publisher: () => publisher,
      logger,
      pollIntervalMs: 200,
    });
    relay.start();
  });

  afterAll(async () => {
    await relay.stop();
    await dataSource.destroy();
    await deleteStreams(nc, prefix);
    await nc.close();
    await schema.drop();
    await telemetry?.shutdown();
  });

  it('D7 the relay’s publish is a child of the decision that queued the row, and its message says so', async () => {
    const conversation = { platform: 'slack', workspaceId: 'T1', channelId: 'C1', threadId: '1.0' };
    const output = {
      type: 'TextOutput',
      v: PROTOCOL_VERSION,
      id: uniqueToken('out'),
      sessionId: deriveSessionId(conversation as Conversation),
      conversation,
      occurredAt: new Date().toISOString(),
      text: 'the tool ran',
    } as TextOutput;
    const writer = new OutboxWriter(subjects, channel);
    await inSpan('session.decide UserMessage', {}, () =>
      dataSource.transaction((manager) => writer.enqueue(manager, [output])),
    );

    const decision = await waitFor('the decision span', () =>
      exporter.getFinishedSpans().find((s) => s.name.startsWith('session.decide')),
    );
    const stored: { traceparent: string | null }[] = await dataSource.query(
      `SELECT traceparent FROM outbox WHERE id = $1`,
      [output.id],
    );
    expect(stored[0]?.traceparent).toBe(
      `00-${decision.spanContext().traceId}-${decision.spanContext().spanId}-01`,
    );

    const subject = subjects.textOutput('slack', output.sessionId);
    const publish = await waitFor('the relay’s publish span', () =>
      exporter.getFinishedSpans().find((s) => s.name === `publish ${subject}`),
    );
    expect(publish.spanContext().traceId).toBe(decision.spanContext().traceId);
    expect(publish.parentSpanContext?.spanId).toBe(decision.spanContext().spanId);

    const jsm = await jetstreamManager(nc);
    const message = await jsm.streams.getMessage(streamDefinitions(prefix).outputs.name, {
      last_by_subj: subject,
    });
    expect(message?.header.get('traceparent')).toBe(
      `00-${publish.spanContext().traceId}-${publish.spanContext().spanId}-01`,
    );
  });
});
