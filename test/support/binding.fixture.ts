import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  type Command,
  encodeMessage,
  type Output,
  outputSubject,
  parseCommand,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import { createTestSchema, type TestSchema, withClient } from './database';
import { connectTestNats, deleteStreams, TEST_NATS_URL } from './nats';
import { type ServiceName, type ServiceProcess, startService } from './service-process';
import { uniqueToken } from './unique';

export interface PromptJournalRow {
  session_id: string;
  call_id: string;
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

export interface DeadLetter {
  subject: string;
  reason: string | undefined;
  originalSubject: string | undefined;
  data: string;
}

/**
 * A binding under test: its own prefix and schema, the built binding started as a child
 * process, a way to publish outputs as the session service would, and a core subscription
 * on the command subjects (the command stream is a work queue: observers never consume it).
 */
export class BindingFixture {
  process?: ServiceProcess;
  readonly commands: { subject: string; command: Command }[] = [];
  private subscription?: Subscription;

  private constructor(
    readonly service: ServiceName,
    readonly prefix: string,
    readonly database: TestSchema,
    readonly nc: NatsConnection,
    private readonly platformEnv: () => Record<string, string>,
    private readonly extraEnv: Record<string, string>,
  ) {}

  static async create(
    service: ServiceName,
    label: string,
    platformEnv: () => Record<string, string>,
    extraEnv: Record<string, string> = {},
    options: { prefix?: string } = {},
  ): Promise<BindingFixture> {
    const fixture = new BindingFixture(
      service,
      options.prefix ?? uniqueToken(label).slice(0, 24),
      createTestSchema(label),
      await connectTestNats(),
      platformEnv,
      extraEnv,
    );
    fixture.observeCommands();
    await fixture.start();
    return fixture;
  }

  get subjects(): Subjects {
    return new Subjects(this.prefix);
  }

  get url(): string {
    if (!this.process) throw new Error('the binding is not running');
    return this.process.url('');
  }

  env(): Record<string, string> {
    return {
      NATS_URL: TEST_NATS_URL,
      DATABASE_URL: this.database.url,
      DATABASE_SCHEMA: this.database.schema,
      TOLLGATE_SUBJECT_PREFIX: this.prefix,
      TOLLGATE_RETRY_BASE_MS: '50',
      TOLLGATE_DRAIN_MS: '3000',
      ...this.platformEnv(),
      ...this.extraEnv,
    };
  }

  async start(): Promise<ServiceProcess> {
    this.process = await startService(this.service, this.env());
    await this.process.waitUntilReady();
    return this.process;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM') {
    const exit = await this.process?.stop(signal);
    this.process = undefined;
    return exit;
  }

  /** Publishes an output on `<PREFIX>_OUT` as the session service's relay would. */
  async publish(output: Output, msgId: string = output.id): Promise<void> {
    await jetstream(this.nc).publish(outputSubject(this.subjects, output), encodeMessage(output), {
      msgID: msgId,
    });
  }

  async publishRaw(subject: string, payload: string, msgId: string): Promise<void> {
    await jetstream(this.nc).publish(subject, new TextEncoder().encode(payload), { msgID: msgId });
  }

  async journal(): Promise<PromptJournalRow[]> {
    return withClient(async (client) => {
      const result = await client.query<PromptJournalRow>(
        `SELECT session_id, call_id, seq, type, data FROM "${this.database.schema}".prompt_events ORDER BY id`,
      );
      return result.rows;
    });
  }

  async deadLetters(): Promise<DeadLetter[]> {
    const jsm = await jetstreamManager(this.nc);
    const stream = streamNames(this.prefix).deadLetters;
    const info = await jsm.streams.info(stream);
    const letters: DeadLetter[] = [];
    for (
      let seq = info.state.first_seq;
      info.state.messages > 0 && seq <= info.state.last_seq;
      seq += 1
    ) {
      const message = await jsm.streams.getMessage(stream, { seq });
      if (!message) continue;
      letters.push({
        subject: message.subject,
        reason: message.header.get('Tollgate-Dlq-Reason'),
        originalSubject: message.header.get('Tollgate-Original-Subject'),
        data: new TextDecoder().decode(message.data),
      });
    }
    return letters;
  }

  async consumerState(): Promise<{ ackPending: number; pending: number }> {
    const jsm = await jetstreamManager(this.nc);
    const info = await jsm.consumers.info(streamNames(this.prefix).outputs, `${this.service}`);
    return { ackPending: info.num_ack_pending, pending: info.num_pending };
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.subscription?.unsubscribe();
    await deleteStreams(this.nc, this.prefix);
    await this.nc.close();
    await this.database.drop();
  }

  private observeCommands(): void {
    this.subscription = this.nc.subscribe(`${this.prefix}.cmd.>`, {
      callback: (error, message) => {
        if (error) return;
        const parsed = parseCommand(message.data);
        if (parsed.ok) this.commands.push({ subject: message.subject, command: parsed.value });
      },
    });
  }
}
