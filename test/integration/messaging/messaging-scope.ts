import { jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import pino, { type Logger } from 'pino';
import {
  connectNats,
  ConsumerRunner,
  JetStreamPublisher,
  provision,
  type ConsumerDefinition,
  type ConsumerRunnerOptions,
  type ManagedNatsConnection,
  type StreamDefinition,
} from '@tollgate/messaging';
import { uniqueToken } from '../../support/unique';

export const SHARED_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Silent unless TEST_LOG_LEVEL asks otherwise, e.g. TEST_LOG_LEVEL=debug when a test fails. */
export const silentLogger: Logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export interface ScenarioOptions {
  retention?: 'workqueue' | 'limits';
  ackWaitMs?: number;
  maxDeliver?: number;
}

/** One isolated corner of JetStream: its own subject prefix, work stream, DLQ and durable. */
export interface Scenario {
  prefix: string;
  work: StreamDefinition;
  dlq: StreamDefinition;
  consumer: ConsumerDefinition;
  dlqSubject: string;
  subject(tail: string): string;
}

export interface StoredCopy {
  subject: string;
  data: string;
  headers: MsgHdrs;
}

/**
 * Everything a messaging test needs against a shared server. Every scenario gets a fresh
 * prefix and fresh streams, and close() deletes them, so concurrent runs never meet.
 */
export class MessagingScope {
  private readonly streams = new Set<string>();
  private readonly runners: ConsumerRunner[] = [];
  private readonly connections: ManagedNatsConnection[] = [];

  private constructor(
    readonly label: string,
    readonly connection: ManagedNatsConnection,
    readonly jsm: JetStreamManager,
    readonly js: JetStreamClient,
    readonly publisher: JetStreamPublisher,
  ) {
    this.connections.push(connection);
  }

  static async open(
    label: string,
    {
      servers = SHARED_NATS_URL,
      reconnectTimeWaitMs,
    }: { servers?: string; reconnectTimeWaitMs?: number } = {},
  ): Promise<MessagingScope> {
    const connection = await connectNats({
      servers,
      name: label,
      logger: silentLogger,
      reconnectTimeWaitMs,
    });
    const jsm = await jetstream(connection.nc).jetstreamManager();
    const js = jsm.jetstream();
    return new MessagingScope(label, connection, jsm, js, new JetStreamPublisher(js));
  }

  /** A separate connection, e.g. for a second replica or one a test kills. */
  async extraConnection(): Promise<ManagedNatsConnection> {
    const connection = await connectNats({
      servers: this.connection.nc.getServer(),
      name: `${this.label}-extra`,
      logger: silentLogger,
    });
    this.connections.push(connection);
    return connection;
  }

  define(options: ScenarioOptions = {}): Scenario {
    const prefix = uniqueToken(this.label);
    const streamBase = prefix.toUpperCase().replace(/-/g, '_');
    const work: StreamDefinition = {
      name: `${streamBase}_WORK`,
      subjects: [`${prefix}.work.>`],
      retention: options.retention ?? 'limits',
      maxAgeMs: 0,
      duplicateWindowMs: 120_000,
      storage: 'file',
      maxBytes: 64 * 1024 * 1024,
      discard: 'new',
    };
    const dlq: StreamDefinition = {
      name: `${streamBase}_DLQ`,
      subjects: [`${prefix}.dlq.>`],
      retention: 'limits',
      maxAgeMs: 24 * 3_600_000,
      duplicateWindowMs: 120_000,
      storage: 'file',
      maxBytes: 64 * 1024 * 1024,
      discard: 'new',
    };
    const consumer: ConsumerDefinition = {
      stream: work.name,
      durable: 'worker',
      filterSubject: `${prefix}.work.>`,
      ackWaitMs: options.ackWaitMs ?? 2_000,
      maxDeliver: options.maxDeliver ?? 1_000,
      deliverPolicy: 'all',
    };
    this.streams.add(work.name);
    this.streams.add(dlq.name);
    return {
      prefix,
      work,
      dlq,
      consumer,
      dlqSubject: `${prefix}.dlq.test-service`,
      subject: (tail) => `${prefix}.work.${tail}`,
    };
  }

  async provisioned(options: ScenarioOptions = {}): Promise<Scenario> {
    const scenario = this.define(options);
    await provision(
      this.jsm,
      { streams: [scenario.work, scenario.dlq], consumers: [scenario.consumer] },
      silentLogger,
    );
    return scenario;
  }

  /** A started runner on the scenario's durable; drained when the scope closes. */
  async runner(
    scenario: Scenario,
    handler: ConsumerRunnerOptions['handler'],
    overrides: Partial<ConsumerRunnerOptions> = {},
  ): Promise<ConsumerRunner> {
    const runner = new ConsumerRunner({
      js: this.js,
      stream: scenario.consumer.stream,
      durable: scenario.consumer.durable,
      service: 'test-service',
      dlqSubject: scenario.dlqSubject,
      handler,
      logger: silentLogger,
      maxInFlight: 8,
      retryBaseMs: 50,
      retryMaxMs: 2_000,
      pullExpiresMs: 1_000,
      restartDelayMs: 100,
      ...overrides,
    });
    await runner.start();
    this.runners.push(runner);
    return runner;
  }

  async consumerInfo(scenario: Scenario) {
    return this.jsm.consumers.info(scenario.consumer.stream, scenario.consumer.durable);
  }

  /** Every message the stream holds, oldest first. */
  async storedMessages(stream: string): Promise<StoredCopy[]> {
    const { state } = await this.jsm.streams.info(stream);
    const copies: StoredCopy[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq += 1) {
      const stored = await this.jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (stored) {
        copies.push({ subject: stored.subject, data: stored.string(), headers: stored.header });
      }
    }
    return copies;
  }

  async close(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.drain(0)));
    for (const stream of this.streams) {
      await this.jsm.streams.delete(stream).catch(() => false);
    }
    for (const connection of this.connections) await connection.close();
  }
}

/** Polls `probe` for the whole window and fails the moment it is not true. */
export async function holdsFor(
  what: string,
  probe: () => boolean | Promise<boolean>,
  { forMs, intervalMs = 50 }: { forMs: number; intervalMs?: number },
): Promise<void> {
  const until = Date.now() + forMs;
  for (;;) {
    if (!(await probe())) throw new Error(`expected ${what} to hold for ${forMs} ms; it did not`);
    if (Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
