import { jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import {
  bindingMigrations,
  bindingProvisionPlan,
  DeliveredOutputsRepository,
  HandleOutput,
  JetStreamCommandPublisher,
  KnownSessionsRepository,
  type OutputHandled,
  PromptJournalRepository,
  type PromptKey,
} from '@tollgate/binding-core';
import {
  ConsumerRunner,
  connectNats,
  failureReason,
  JetStreamPublisher,
  type ManagedNatsConnection,
  PermanentFailure,
  provision,
} from '@tollgate/messaging';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import {
  bindingConsumer,
  type Command,
  encodeMessage,
  parseCommand,
  type Output,
  outputSubject,
  streamNames,
  Subjects,
  DEFAULT_STREAM_MAX_BYTES,
} from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { createTestSchema, type TestSchema } from '../../support/database';
import { deleteStreams, TEST_NATS_URL } from '../../support/nats';
import { uniqueToken } from '../../support/unique';
import { waitFor } from '../../support/wait-for';
import { RecordingPlatformAdapter } from './recording-platform.adapter';

/** Silent unless TEST_LOG_LEVEL asks otherwise, e.g. TEST_LOG_LEVEL=debug when a test fails. */
export const testLogger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export const SERVICE = 'slack-binding';

/** One handling attempt of one delivery, as the consumer runner saw it. */
export interface Attempt {
  readonly streamSeq: number;
  readonly deliveryCount: number;
  readonly at: number;
  readonly handled?: OutputHandled;
  readonly failure?: string;
  readonly permanent?: boolean;
}

export interface JournalRow {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

export interface StoredCopy {
  subject: string;
  data: string;
  headers: MsgHdrs;
}

export interface HarnessOptions {
  ackWaitMs?: number;
  leaseMs?: number;
  /** HandleOutput's landingMs: how long a look that finds no unfinished post is not believed. */
  landingMs?: number;
}

/**
 * The binding core against the real NATS and PostgreSQL, with the chat platform recorded in
 * memory: its own subject prefix and schema, the binding's streams and durable, and a real
 * ConsumerRunner on that durable. `close()` removes all of it.
 */
export class BindingHarness {
  readonly attempts: Attempt[] = [];
  readonly adapter = new RecordingPlatformAdapter('slack');
  readonly prompts: PromptJournalRepository;
  readonly deliveries: DeliveredOutputsRepository;
  readonly sessions: KnownSessionsRepository;
  readonly subjects: Subjects;
  readonly publisher: JetStreamPublisher;
  /** Commands the core published (R2's undeliverable), stored on the harness's CMD stream. */
  readonly commands: JetStreamCommandPublisher;
  private runner?: ConsumerRunner;

  private constructor(
    readonly prefix: string,
    readonly schema: TestSchema,
    readonly dataSource: DataSource,
    readonly nats: ManagedNatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly ackWaitMs: number,
    readonly leaseMs: number,
    readonly landingMs = 0,
  ) {
    const db = async () => dataSource;
    this.prompts = new PromptJournalRepository(db);
    this.deliveries = new DeliveredOutputsRepository(db);
    this.sessions = new KnownSessionsRepository(db);
    this.subjects = new Subjects(prefix);
    this.publisher = new JetStreamPublisher(js);
    this.commands = new JetStreamCommandPublisher(this.subjects, async () => this.publisher);
  }

  static async open(label: string, options: HarnessOptions = {}): Promise<BindingHarness> {
    const ackWaitMs = options.ackWaitMs ?? 2_000;
    const prefix = uniqueToken(label).slice(0, 24);
    const schema = createTestSchema(label);
    const dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: bindingMigrations(),
      applicationName: `test-${label}`,
      poolSize: 6,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, testLogger);
    const nats = await connectNats({ servers: TEST_NATS_URL, name: label, logger: testLogger });
    const js = jetstream(nats.nc);
    const jsm = await js.jetstreamManager();
    await provision(
      jsm,
      bindingProvisionPlan(
        {
          TOLLGATE_SUBJECT_PREFIX: prefix,
          TOLLGATE_OUT_MAX_AGE_DAYS: 1,
          TOLLGATE_ACK_WAIT_MS: ackWaitMs,
          TOLLGATE_STREAM_MAX_BYTES: DEFAULT_STREAM_MAX_BYTES,
        },
        'slack',
      ),
      testLogger,
    );
    return new BindingHarness(
      prefix,
      schema,
      dataSource,
      nats,
      js,
      jsm,
      ackWaitMs,
      options.leaseMs ?? 2 * ackWaitMs,
      options.landingMs,
    );
  }

  handleOutput(replicaId = 'replica-a'): HandleOutput {
    return new HandleOutput({
      subjects: this.subjects,
      prompts: this.prompts,
      deliveries: this.deliveries,
      sessions: this.sessions,
      adapter: this.adapter,
      replicaId,
      leaseMs: this.leaseMs,
      reconcileForMs: this.leaseMs,
      landingMs: this.landingMs,
      commands: this.commands,
      now: () => new Date(),
      logger: testLogger,
    });
  }

  /** A runner on the binding's durable, recording every attempt; drained by close(). */
  async startConsumer(replicaId = 'replica-a'): Promise<void> {
    const handleOutput = this.handleOutput(replicaId);
    const definition = bindingConsumer(this.prefix, 'slack', this.ackWaitMs);
    this.runner = new ConsumerRunner({
      js: this.js,
      stream: definition.stream,
      durable: definition.durable,
      service: SERVICE,
      dlqSubject: this.subjects.dlq(SERVICE),
      logger: testLogger,
      retryBaseMs: 50,
      retryMaxMs: 2_000,
      pullExpiresMs: 1_000,
      restartDelayMs: 100,
      handler: async (message) => {
        const base = {
          streamSeq: message.streamSeq,
          deliveryCount: message.deliveryCount,
          at: Date.now(),
        };
        try {
          const handled = await handleOutput.handleMessage(message.subject, message.data);
          this.attempts.push({ ...base, handled });
        } catch (error) {
          this.attempts.push({
            ...base,
            failure: failureReason(error),
            permanent: error instanceof PermanentFailure,
          });
          throw error;
        }
      },
    });
    await this.runner.start();
  }

  /** Publishes as the session service does; another `msgId` stands for a re-publish later on. */
  async publish(output: Output, msgId = output.id): Promise<number> {
    const receipt = await this.publisher.publish(
      outputSubject(this.subjects, output),
      encodeMessage(output),
      { msgId },
    );
    return receipt.seq;
  }

  async publishRaw(subject: string, data: Uint8Array, msgId: string): Promise<number> {
    return (await this.publisher.publish(subject, data, { msgId })).seq;
  }

  /** Waits until the delivery at `streamSeq` was handled for good (acked or dead-lettered). */
  /** Every command the core published on the harness's CMD stream, oldest first. */
  async commandsPublished(): Promise<Command[]> {
    const stream = streamNames(this.prefix).commands;
    const info = await this.jsm.streams.info(stream);
    const commands: Command[] = [];
    for (
      let seq = info.state.first_seq;
      info.state.messages > 0 && seq <= info.state.last_seq;
      seq += 1
    ) {
      const message = await this.jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
      if (!message) continue;
      const parsed = parseCommand(message.data);
      if (parsed.ok) commands.push(parsed.value);
    }
    return commands;
  }

  async settled(streamSeq: number): Promise<Attempt> {
    return waitFor(`stream message ${streamSeq} to be settled`, () =>
      this.attempts.find(
        (a) => a.streamSeq === streamSeq && (a.handled !== undefined || a.permanent === true),
      ),
    );
  }

  attemptsOf(streamSeq: number): Attempt[] {
    return this.attempts.filter((a) => a.streamSeq === streamSeq);
  }

  async journal(key: PromptKey): Promise<JournalRow[]> {
    return this.dataSource.query(
      `SELECT seq, type, data FROM prompt_events
       WHERE session_id = $1 AND call_id = $2 ORDER BY id`,
      [key.sessionId, key.callId],
    );
  }

  async promptRow(key: PromptKey): Promise<Record<string, unknown> | undefined> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT * FROM prompts WHERE session_id = $1 AND call_id = $2`,
      [key.sessionId, key.callId],
    );
    return rows[0];
  }

  /**
   * Lets a prompt's lease run out now, as time would: a test that needs another replica to
   * see the lease first and the expiry second orders them itself instead of racing a clock.
   */
  async expireLease(key: PromptKey): Promise<void> {
    await this.dataSource.query(
      `UPDATE prompts SET lease_until = clock_timestamp() - interval '1 millisecond'
        WHERE session_id = $1 AND call_id = $2 AND lease_until IS NOT NULL`,
      [key.sessionId, key.callId],
    );
  }

  /** Every dead-lettered copy so far, oldest first. */
  async deadLetters(): Promise<StoredCopy[]> {
    const stream = streamNames(this.prefix).deadLetters;
    const { state } = await this.jsm.streams.info(stream);
    const copies: StoredCopy[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq += 1) {
      const stored = await this.jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (stored) {
        copies.push({ subject: stored.subject, data: stored.string(), headers: stored.header });
      }
    }
    return copies;
  }

  async close(): Promise<void> {
    await this.runner?.drain(0);
    await deleteStreams(this.nats.nc, this.prefix);
    await this.nats.close();
    await this.dataSource.destroy();
    await this.schema.drop();
  }
}
