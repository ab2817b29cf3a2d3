import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  APPROVAL_API_MIGRATIONS,
  type ApprovalClient,
  ApprovalClientsRepository,
  type NewClient,
} from '@tollgate/approval-clients';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import {
  type ApprovalDecided,
  type ApprovalDecision,
  type ApprovalRequest,
  encodeMessage,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import type { DataSource, QueryRunner } from 'typeorm';
import { createTestSchema, type TestSchema } from './database';
import { connectTestNats, TEST_NATS_URL } from './nats';
import { type ServiceProcess, startService } from './service-process';
import { uniqueToken } from './unique';
import { waitFor } from './wait-for';

export interface ApiAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

export interface ApiCall {
  readonly key?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Which replica answers (default the first). */
  readonly replica?: number;
}

/**
 * Built approval-api replicas on real NATS and PostgreSQL, isolated by subject prefix and
 * schema, with what a test needs around them: clients made as the CLI makes them, the
 * commands they published read back from the command stream, and decision events published
 * as the session service publishes them.
 */
export class ApprovalApiSystem {
  private constructor(
    readonly prefix: string,
    readonly schema: TestSchema,
    readonly nc: NatsConnection,
    private readonly dataSource: DataSource,
    readonly replicas: ServiceProcess[],
    readonly clients: ApprovalClientsRepository,
    private readonly env: Record<string, string>,
    /** False when the prefix is another fixture's (a session service's): it cleans its streams. */
    private readonly ownsStreams: boolean,
  ) {}

  static async start(
    label: string,
    {
      replicas = 1,
      env = {},
      natsUrl = TEST_NATS_URL,
      prefix: sharedPrefix,
    }: {
      replicas?: number;
      env?: Record<string, string>;
      natsUrl?: string;
      /** Join this subject prefix (a session service's) instead of a fresh one of its own. */
      prefix?: string;
    } = {},
  ): Promise<ApprovalApiSystem> {
    const prefix = sharedPrefix ?? uniqueToken(label).slice(0, 30);
    const schema = createTestSchema(label);
    const nc = await connectTestNats(natsUrl);
    const dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: APPROVAL_API_MIGRATIONS,
      applicationName: 'test',
      poolSize: 2,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, {
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      debug: () => undefined,
    } as never);
    const fullEnv = {
      DATABASE_URL: schema.url,
      DATABASE_SCHEMA: schema.schema,
      NATS_URL: natsUrl,
      TOLLGATE_SUBJECT_PREFIX: prefix,
      TOLLGATE_DRAIN_MS: '2000',
      ...env,
    };
    const system = new ApprovalApiSystem(
      prefix,
      schema,
      nc,
      dataSource,
      [],
      new ApprovalClientsRepository(async () => dataSource),
      fullEnv,
      sharedPrefix === undefined,
    );
    try {
      for (let i = 0; i < replicas; i += 1) await system.addReplica();
    } catch (error) {
      // A replica that never became ready is still running: stop it and clean up, so a
      // caller's failed start leaves no process, schema or streams behind.
      await system.stop().catch(() => undefined);
      throw error;
    }
    return system;
  }

  async addReplica(): Promise<ServiceProcess> {
    const replica = await startService('approval-api', this.env);
    this.replicas.push(replica);
    await replica.waitUntilReady(20_000);
    return replica;
  }

  async createClient(
    overrides: Partial<NewClient> = {},
  ): Promise<{ client: ApprovalClient; key: string }> {
    return this.clients.create({
      name: 'test agent',
      platform: 'slack',
      workspaceId: 'T1',
      conversation: { channelId: 'C1', threadId: '' },
      approvers: ['U_ALICE', 'U_BOB'],
      ...overrides,
    });
  }

  async call(method: string, path: string, call: ApiCall = {}): Promise<ApiAnswer> {
    const replica = this.replicas[call.replica ?? 0];
    if (replica === undefined) throw new Error(`no replica ${call.replica}`);
    const headers: Record<string, string> = { ...call.headers };
    if (call.key !== undefined) headers.authorization = `Bearer ${call.key}`;
    let body: string | undefined;
    if (call.body !== undefined) {
      body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(replica.url(path), { method, headers, body });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON: the test reads `text`.
    }
    return { status: response.status, body: parsed, text };
  }

  /** `POST /v1/approvals` with a fresh Idempotency-Key unless one is given. */
  create(key: string, body: unknown, idempotencyKey = uniqueToken('idem'), replica = 0) {
    return this.call('POST', '/v1/approvals', {
      key,
      body,
      headers: { 'idempotency-key': idempotencyKey },
      replica,
    });
  }

  /** The `ApprovalRequest` approval-api published for an approval, read from the stream. */
  async publishedRequest(approvalId: string): Promise<ApprovalRequest> {
    const stream = streamNames(this.prefix).commands;
    return waitFor(`the ApprovalRequest of ${approvalId} on ${stream}`, async () => {
      const jsm = await jetstreamManager(this.nc);
      const info = await jsm.streams.info(stream, { subjects_filter: `${this.prefix}.cmd.api.>` });
      for (const subject of Object.keys(info.state.subjects ?? {})) {
        if (!subject.endsWith('.approval')) continue;
        const message = await jsm.streams.getMessage(stream, { last_by_subj: subject });
        const command = message?.json<ApprovalRequest>();
        if (command?.approvalId === approvalId) return command;
      }
      return undefined;
    });
  }

  /** How many commands approval-api has on the command stream. */
  async commandCount(): Promise<number> {
    return waitFor('the command stream', async () => {
      const jsm = await jetstreamManager(this.nc);
      const info = await jsm.streams.info(streamNames(this.prefix).commands);
      return info.state.messages + 1;
    }).then((n) => n - 1);
  }

  /** Whether an `ApprovalCancel` for the approval is on the command stream. */
  async cancelPublished(request: ApprovalRequest): Promise<boolean> {
    const jsm = await jetstreamManager(this.nc);
    const message = await jsm.streams
      .getMessage(streamNames(this.prefix).commands, {
        last_by_subj: new Subjects(this.prefix).apiCommand(request.sessionId, 'cancel'),
      })
      .catch(() => null);
    return message?.json<{ approvalId: string }>().approvalId === request.approvalId;
  }

  /** Publishes the session service's decision event for an approval. */
  async decide(
    approval: { approvalId: string; clientId: string; sessionId: string },
    status: ApprovalDecided['status'],
    decision: ApprovalDecision | null,
  ): Promise<void> {
    const event: ApprovalDecided = {
      type: 'ApprovalDecided',
      v: 1,
      id: `decision:${approval.approvalId}`,
      occurredAt: new Date().toISOString(),
      sessionId: approval.sessionId,
      approvalId: approval.approvalId,
      clientId: approval.clientId,
      status,
      decision,
      decidedAt: new Date().toISOString(),
    };
    await jetstream(this.nc).publish(
      new Subjects(this.prefix).decision(approval.clientId, approval.approvalId),
      encodeMessage(event),
      { msgID: event.id },
    );
  }

  async query<T>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    return this.dataSource.query(sql, parameters);
  }

  /** A connection of its own, for a test that holds a transaction open across requests. */
  queryRunner(): QueryRunner {
    return this.dataSource.createQueryRunner();
  }

  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.stop()));
    if (this.ownsStreams) {
      const jsm = await jetstreamManager(this.nc);
      for (const name of Object.values(streamNames(this.prefix))) {
        await jsm.streams.delete(name).catch(() => false);
      }
    }
    await this.nc.close();
    await this.dataSource.destroy();
    await this.schema.drop();
  }
}

export const approvedBy = (id: string, displayName?: string): ApprovalDecision => ({
  option: 'approve_once',
  by: { platform: 'slack', id, ...(displayName === undefined ? {} : { displayName }) },
  via: 'click',
  reason: null,
});

export const deniedBy = (id: string, displayName?: string, reason: string | null = null) => ({
  option: 'deny' as const,
  by: { platform: 'slack' as const, id, ...(displayName === undefined ? {} : { displayName }) },
  via: 'click' as const,
  reason,
});
