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
import { createTestSchema, TEST_DATABASE_URL, type TestSchema, withClient } from './database';
import { connectTestNats, deleteStreams, TEST_NATS_URL } from './nats';
import { type ServiceName, type ServiceProcess, startService } from './service-process';
import { postJournaled } from './post-journaled';
import { uniqueToken } from './unique';
import { waitFor } from './wait-for';

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

/** A binding someone started by hand, for the contract suite's external mode. */
export interface ExternalBindingTarget {
  /** Where its HTTP endpoints answer, e.g. `http://127.0.0.1:3001`. */
  readonly url: string;
  /** Its TOLLGATE_SUBJECT_PREFIX. */
  readonly prefix: string;
  /** Its DATABASE_SCHEMA, on the test database server (TEST_DATABASE_URL). */
  readonly schema: string;
}

/**
 * A binding under test: its own prefix and schema, the built binding started as a child
 * process, a way to publish outputs as the session service would, and a core subscription
 * on the command subjects (the command stream is a work queue: observers never consume it).
 * Further replicas on the same durable and schema can be started beside it; a binding
 * started by hand can be attached to instead, in which case it is never stopped or cleaned.
 */
export class BindingFixture {
  process?: ServiceProcess;
  readonly commands: { subject: string; command: Command }[] = [];
  /** Replicas started with `startReplica` that have not been stopped through the fixture. */
  readonly replicas = new Set<ServiceProcess>();
  private subscription?: Subscription;
  private externalUrl?: string;

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
    try {
      await fixture.start();
    } catch (error) {
      // As the session service's fixture: a binding that never became ready is stopped and
      // its streams deleted, not left holding storage on the shared server.
      await fixture.dispose().catch(() => undefined);
      throw error;
    }
    return fixture;
  }

  /**
   * Attaches to a binding started by hand: waits for it to be ready, and never starts, stops
   * or cleans it up (its streams and schema are left as they are).
   */
  static async attach(
    service: ServiceName,
    target: ExternalBindingTarget,
    platformEnv: () => Record<string, string>,
    extraEnv: Record<string, string> = {},
  ): Promise<BindingFixture> {
    const database: TestSchema = {
      schema: target.schema,
      url: TEST_DATABASE_URL,
      drop: async () => undefined,
    };
    const fixture = new BindingFixture(
      service,
      target.prefix,
      database,
      await connectTestNats(),
      platformEnv,
      extraEnv,
    );
    fixture.externalUrl = target.url.replace(/\/+$/, '');
    fixture.observeCommands();
    await waitFor(
      `the binding at ${fixture.externalUrl} to answer /health/ready with 200`,
      async () => (await fetch(`${fixture.externalUrl}/health/ready`)).status === 200,
      { timeoutMs: 15_000 },
    );
    return fixture;
  }

  /** Started by hand and attached to: the suite can neither restart nor stop it. */
  get external(): boolean {
    return this.externalUrl !== undefined;
  }

  get subjects(): Subjects {
    return new Subjects(this.prefix);
  }

  get url(): string {
    if (this.externalUrl !== undefined) return this.externalUrl;
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
    this.refuseIfExternal('start');
    this.process = await startService(this.service, this.env());
    await this.process.waitUntilReady();
    return this.process;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM') {
    this.refuseIfExternal('stop');
    const exit = await this.process?.stop(signal);
    this.process = undefined;
    return exit;
  }

  /**
   * Starts one more process of the binding on the same prefix (so the same durable) and
   * schema; `platformEnv` and `env` override the fixture's environment for it alone.
   */
  async startReplica(
    platformEnv: Record<string, string>,
    env: Record<string, string> = {},
  ): Promise<ServiceProcess> {
    const replica = await startService(this.service, { ...this.env(), ...platformEnv, ...env });
    this.replicas.add(replica);
    void replica.exited().then(() => this.replicas.delete(replica));
    await replica.waitUntilReady();
    return replica;
  }

  /** The durable's ack_wait, as JetStream runs it (set by whichever process created it). */
  async ackWaitMs(): Promise<number> {
    const jsm = await jetstreamManager(this.nc);
    const info = await jsm.consumers.info(streamNames(this.prefix).outputs, this.service);
    const ackWaitNanos = info.config.ack_wait;
    if (ackWaitNanos === undefined) throw new Error(`durable ${this.service} has no ack_wait`);
    return Math.round(ackWaitNanos / 1_000_000);
  }

  /** Pull requests waiting on the durable: one per idle replica. */
  async pullsWaiting(): Promise<number> {
    const jsm = await jetstreamManager(this.nc);
    return (await jsm.consumers.info(streamNames(this.prefix).outputs, this.service)).num_waiting;
  }

  /** The owners of every lease still running, on prompts and on once-only deliveries. */
  async liveLeaseOwners(): Promise<string[]> {
    return withClient(async (client) => {
      const result = await client.query<{ lease_owner: string }>(
        `SELECT lease_owner FROM "${this.database.schema}".prompts
           WHERE lease_until > clock_timestamp()
         UNION ALL
         SELECT lease_owner FROM "${this.database.schema}".delivered_outputs
           WHERE lease_until > clock_timestamp()`,
      );
      return result.rows.map((row) => row.lease_owner);
    });
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

  /** Waits until the binding has journaled the post `messageId` (see {@link postJournaled}). */
  async postJournaled(messageId: string): Promise<void> {
    await postJournaled(this.database.schema, messageId);
  }

  async journal(): Promise<PromptJournalRow[]> {
    return withClient(async (client) => {
      const result = await client.query<PromptJournalRow>(
        `SELECT session_id, call_id, seq, type, data FROM "${this.database.schema}".prompt_events ORDER BY id`,
      );
      return result.rows;
    });
  }

  /**
   * P5: the session's refreshes parked until the platform has room: acked on the stream once
   * parked, and shown (then deleted) later by the sweeper.
   */
  async owedRefreshes(sessionId: string): Promise<number> {
    return withClient(async (client) => {
      const result = await client.query<{ owed: number }>(
        `SELECT count(*)::int AS owed FROM "${this.database.schema}".owed_refreshes WHERE session_id = $1`,
        [sessionId],
      );
      return result.rows[0]?.owed ?? 0;
    });
  }

  /** G1: the approver groups' members the binding journaled with a prompt, by group id. */
  async approverMembers(sessionId: string): Promise<Record<string, string[]> | undefined> {
    return withClient(async (client) => {
      const result = await client.query<{ approver_members: Record<string, string[]> | null }>(
        `SELECT approver_members FROM "${this.database.schema}".prompts WHERE session_id = $1`,
        [sessionId],
      );
      return result.rows[0]?.approver_members ?? undefined;
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
    await Promise.all([...this.replicas].map((replica) => replica.stop('SIGKILL')));
    if (this.external) {
      this.subscription?.unsubscribe();
      await this.nc.close();
      return;
    }
    await this.stop();
    this.subscription?.unsubscribe();
    await deleteStreams(this.nc, this.prefix);
    await this.nc.close();
    await this.database.drop();
  }

  private refuseIfExternal(what: string): void {
    if (this.external) {
      throw new Error(`cannot ${what} the binding at ${this.externalUrl}: it was started by hand`);
    }
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
