import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Platform, streamNames } from '@tollgate/protocol';
import { Client } from 'pg';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { PlatformDriver } from '../contract/platform-driver';
import { freePort } from './free-port';
import { connectTestNats, deleteStreams } from './nats';
import { type ServiceName, type ServiceProcess, startService } from './service-process';
import { sessionLogLines } from './session-log-lines';
import { uniqueToken } from './unique';
import { waitFor } from './wait-for';

export const PLATFORMS: readonly Platform[] = ['slack', 'discord', 'mattermost'];

export interface WholeSystemOptions {
  readonly label: string;
  /** One URL or several, comma-separated, as the services take it. */
  readonly natsUrl: string;
  readonly databaseUrl: string;
  /** Binding processes per platform, all on one durable and schema. Default 1. */
  readonly bindingReplicas?: number;
  /**
   * Restart a service that exits, as an orchestrator's `restart: always` would (the session
   * service exits on purpose when it loses its leader lock).
   */
  readonly supervise?: boolean;
  /** A subject prefix provisioned beforehand; a fresh one otherwise. */
  readonly prefix?: string;
}

/** One running process of the system, restarted in place (same port) by the supervisor. */
export interface SystemMember {
  readonly service: ServiceName;
  readonly name: string;
  readonly port: number;
  readonly env: Record<string, string>;
  process?: ServiceProcess;
  /** Exits the supervisor saw, and restarts it made. */
  restarts: number;
  /** Killed on purpose by a test: never restarted. */
  killed: boolean;
}

/**
 * The whole system on one subject prefix: the session service and every platform's binding
 * (each against its fake platform API) as built processes, on NATS and PostgreSQL servers the
 * caller chooses, so a test can restart or kill any of them.
 */
export class WholeSystem {
  readonly prefix: string;
  readonly members: SystemMember[] = [];
  readonly drivers = new Map<Platform, PlatformDriver>();
  readonly schemas: Record<string, string> = {};
  private stopping = false;
  private nc?: NatsConnection;

  private constructor(private readonly options: WholeSystemOptions) {
    this.prefix = options.prefix ?? uniqueToken(options.label).slice(0, 24);
  }

  static async start(options: WholeSystemOptions): Promise<WholeSystem> {
    const system = new WholeSystem(options);
    try {
      await system.boot();
    } catch (error) {
      await system.dispose();
      throw error;
    }
    return system;
  }

  private async boot(): Promise<void> {
    const { natsUrl, databaseUrl } = this.options;
    const common = {
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      TOLLGATE_SUBJECT_PREFIX: this.prefix,
      TOLLGATE_RETRY_BASE_MS: '100',
      TOLLGATE_DRAIN_MS: '3000',
      TOLLGATE_ACK_WAIT_MS: '3000',
    };
    const schemaOf = (service: ServiceName) => {
      this.schemas[service] ??= `t_${uniqueToken(service.slice(0, 8))}`.slice(0, 63);
      return this.schemas[service];
    };
    const session = await this.member('session-service', 'session-service', {
      ...common,
      DATABASE_SCHEMA: schemaOf('session-service'),
    });
    // The session service creates the streams the bindings' durables live on.
    await session.process!.waitUntilReady(30_000);
    for (const platform of PLATFORMS) {
      const driver = CONTRACT_DRIVERS[platform]!();
      await driver.start();
      this.drivers.set(platform, driver);
      const service = `${platform}-binding` as ServiceName;
      for (let replica = 0; replica < (this.options.bindingReplicas ?? 1); replica += 1) {
        const name = `${platform}-${replica}`;
        await this.member(service, name, {
          ...common,
          DATABASE_SCHEMA: schemaOf(service),
          ...driver.bindingEnv(name),
        });
      }
    }
    await Promise.all(this.members.map((m) => m.process!.waitUntilReady(30_000)));
  }

  private async member(
    service: ServiceName,
    name: string,
    env: Record<string, string>,
  ): Promise<SystemMember> {
    const member: SystemMember = {
      service,
      name,
      port: await freePort(),
      env,
      restarts: 0,
      killed: false,
    };
    this.members.push(member);
    await this.launch(member);
    return member;
  }

  private async launch(member: SystemMember): Promise<void> {
    const started = await startService(member.service, {
      ...member.env,
      PORT: String(member.port),
    });
    member.process = started;
    void started.exited().then(async () => {
      if (member.process !== started) return;
      member.process = undefined;
      if (this.stopping || member.killed || !this.options.supervise) return;
      member.restarts += 1;
      await this.launch(member).catch(() => undefined);
    });
  }

  driver(platform: Platform): PlatformDriver {
    return this.drivers.get(platform)!;
  }

  /** Where a platform sends its requests: the first replica of the binding that is up. */
  bindingUrl(platform: Platform): string {
    const alive = this.members.find(
      (m) => m.service === `${platform}-binding` && m.process !== undefined && !m.killed,
    );
    return `http://127.0.0.1:${(alive ?? this.bindingMembers(platform)[0]).port}`;
  }

  bindingMembers(platform: Platform): SystemMember[] {
    return this.members.filter((m) => m.service === `${platform}-binding`);
  }

  /** SIGKILLs one member for good. */
  async kill(member: SystemMember): Promise<void> {
    member.killed = true;
    await member.process?.stop('SIGKILL');
  }

  /** Messages waiting or unacknowledged on every durable of the prefix. */
  async backlog(): Promise<number> {
    this.nc ??= await connectTestNats(this.options.natsUrl.split(','));
    const jsm = await jetstreamManager(this.nc);
    const names = streamNames(this.prefix);
    let total = 0;
    for (const stream of [names.commands, names.outputs]) {
      for await (const info of jsm.consumers.list(stream)) {
        total += info.num_pending + info.num_ack_pending;
      }
    }
    return total;
  }

  /** Waits until nothing waits on any durable, however long faults made it. */
  async untilIdle(timeoutMs: number): Promise<void> {
    await waitFor('every durable to be idle', async () => (await this.backlog()) === 0, {
      timeoutMs,
      intervalMs: 250,
    });
  }

  /** Rows of the session journal of one event type, per session. */
  async sessionEventCounts(type: string): Promise<Map<string, number>> {
    const client = new Client({ connectionString: this.options.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ session_id: string; n: number }>(
        `SELECT session_id, count(*)::int AS n FROM "${this.schemas['session-service']}".session_events
          WHERE type = $1 GROUP BY session_id`,
        [type],
      );
      return new Map(rows.map((r) => [r.session_id, r.n]));
    } finally {
      await client.end();
    }
  }

  /** One session's journal as `type` list, oldest first (what went wrong with a prompt). */
  async sessionJournal(sessionId: string): Promise<string[]> {
    const client = new Client({ connectionString: this.options.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ type: string }>(
        `SELECT type FROM "${this.schemas['session-service']}".session_events
          WHERE session_id = $1 ORDER BY seq`,
        [sessionId],
      );
      return rows.map((r) => r.type);
    } finally {
      await client.end();
    }
  }

  /** A binding's prompt journal for one session: `type@seq`, oldest first. */
  async bindingJournal(platform: Platform, sessionId: string): Promise<string[]> {
    const client = new Client({ connectionString: this.options.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ type: string; seq: number }>(
        `SELECT type, seq FROM "${this.schemas[`${platform}-binding`]}".prompt_events
          WHERE session_id = $1 ORDER BY id`,
        [sessionId],
      );
      return rows.map((r) => `${r.type}@${r.seq}`);
    } finally {
      await client.end();
    }
  }

  /**
   * What the platform's binding processes logged about one session (warnings and worse in
   * tests): a prompt that did not converge on a slow CI run is told apart by these alone.
   */
  bindingLog(platform: Platform, sessionId: string, last = 6): string[] {
    const outputs = this.bindingMembers(platform).map((m) => m.process?.output());
    return sessionLogLines(outputs, sessionId, { last });
  }

  /** Every dead letter of the prefix: `<service> <reason>`. */
  async deadLetters(): Promise<string[]> {
    this.nc ??= await connectTestNats(this.options.natsUrl.split(','));
    const jsm = await jetstreamManager(this.nc);
    const stream = streamNames(this.prefix).deadLetters;
    const { state } = await jsm.streams.info(stream);
    const letters: string[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq += 1) {
      const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (!message) continue;
      letters.push(
        `${message.header.get('Tollgate-Service')} ${message.header.get('Tollgate-Original-Subject')}: ${message.header.get('Tollgate-Dlq-Reason')}`,
      );
    }
    return letters;
  }

  async dispose(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.members.map((m) => (m.process ? m.process.stop('SIGKILL') : Promise.resolve())),
    );
    for (const driver of this.drivers.values()) await driver.stop();
    if (this.nc) {
      await deleteStreams(this.nc, this.prefix).catch(() => undefined);
      await this.nc.close().catch(() => undefined);
    }
    const client = new Client({ connectionString: this.options.databaseUrl });
    try {
      await client.connect();
      for (const schema of Object.values(this.schemas)) {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      }
    } catch {
      // A private server is thrown away whole.
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
