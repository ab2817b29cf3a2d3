import type { NatsConnection } from '@nats-io/nats-core';
import type { Command } from '@tollgate/protocol';
import { createTestSchema, type TestSchema, withClient } from './database';
import { connectTestNats, deleteStreams, OutputLog, publishCommand, TEST_NATS_URL } from './nats';
import { type ServiceProcess, startService } from './service-process';
import { uniqueToken } from './unique';

export interface JournalRow {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/**
 * A session service under test: its own subject prefix and schema, the built service
 * started as a child process, and a log of everything it published.
 */
export class SessionServiceFixture {
  process?: ServiceProcess;
  outputs!: OutputLog;

  private constructor(
    readonly prefix: string,
    readonly database: TestSchema,
    readonly nc: NatsConnection,
    private readonly extraEnv: Record<string, string>,
  ) {}

  static async create(
    label: string,
    extraEnv: Record<string, string> = {},
    options: { prefix?: string } = {},
  ): Promise<SessionServiceFixture> {
    const fixture = new SessionServiceFixture(
      options.prefix ?? uniqueToken(label).slice(0, 24),
      createTestSchema(label),
      await connectTestNats(),
      extraEnv,
    );
    try {
      await fixture.start();
      fixture.outputs = await OutputLog.open(fixture.nc, fixture.prefix);
    } catch (error) {
      // A process that never became ready is still running, and the streams it made stay
      // reserved on the shared server: stop and delete them, or every later start pays.
      await fixture.dispose().catch(() => undefined);
      throw error;
    }
    return fixture;
  }

  env(): Record<string, string> {
    return {
      NATS_URL: TEST_NATS_URL,
      DATABASE_URL: this.database.url,
      DATABASE_SCHEMA: this.database.schema,
      TOLLGATE_SUBJECT_PREFIX: this.prefix,
      TOLLGATE_RETRY_BASE_MS: '50',
      TOLLGATE_DRAIN_MS: '3000',
      ...this.extraEnv,
    };
  }

  /** Starts a process; `overrides` apply to this process only (e.g. a failpoint). */
  async start(overrides: Record<string, string> = {}): Promise<ServiceProcess> {
    this.process = await startService('session-service', { ...this.env(), ...overrides });
    await this.process.waitUntilReady();
    return this.process;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM') {
    const exit = await this.process?.stop(signal);
    this.process = undefined;
    return exit;
  }

  async restart(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }

  send(command: Command, options: { msgId?: string | null } = {}): Promise<void> {
    return publishCommand(this.nc, this.prefix, command, options);
  }

  async journal(sessionId: string): Promise<JournalRow[]> {
    return withClient(async (client) => {
      const result = await client.query<JournalRow>(
        `SELECT seq, type, data FROM "${this.database.schema}".session_events
         WHERE session_id = $1 ORDER BY seq`,
        [sessionId],
      );
      return result.rows;
    });
  }

  async dispose(): Promise<void> {
    await this.stop();
    await this.outputs?.close();
    await deleteStreams(this.nc, this.prefix);
    await this.nc.close();
    await this.database.drop();
  }
}
