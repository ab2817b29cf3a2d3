import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { LazyModuleLoader } from '@nestjs/core';
import type { Command } from '@tollgate/protocol';
import {
  ConsumerHost,
  DatabaseClient,
  NatsClient,
  ReadinessService,
} from '@tollgate/service-runtime';
import { TransientFailure } from '@tollgate/messaging';
import { ActiveSessionModule } from './active/active-session.module';
import { ActiveSession } from './active/active-session.service';
import { LeaderGate } from './leadership/leader-gate';
import { MODEL_CLIENT, type ModelClient } from './model/model-client.port';
import type { SessionDeps } from './session/domain/session-deps';
import { TOOL_POLICY, TOOL_REGISTRY, type ToolRegistry } from './tools/tool-registry';
import type { ToolPolicy } from './tools/tool-policy';
import { TOOL_GRANTS, type ToolGrants } from './session/domain/tool-grants.port';
import { tracedSessionDeps } from './tracing/traced-deps';

/**
 * The session service's leader gate. Only the instance the LeaderGate lets through works: it
 * loads ActiveSessionModule (recovery, the outbox relay, the scheduler, the consumer) and
 * starts it; a standby stays ready, says so, and waits for the lock, never building any of
 * it. On shutdown the active session stops first (its consumer drains, so the outputs of
 * in-flight commands are still relayed), and the lock goes last, so a standby takes over
 * only once nothing here writes any more.
 */
@Injectable()
export class SessionRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private active?: ActiveSession;
  private stopping = false;

  constructor(
    @Inject(MODEL_CLIENT) private readonly model: ModelClient,
    @Inject(TOOL_REGISTRY) private readonly tools: ToolRegistry,
    @Inject(TOOL_POLICY) private readonly policy: ToolPolicy,
    @Inject(TOOL_GRANTS) private readonly grants: ToolGrants,
    private readonly database: DatabaseClient,
    private readonly nats: NatsClient,
    private readonly consumers: ConsumerHost,
    private readonly leader: LeaderGate,
    private readonly modules: LazyModuleLoader,
    private readonly readiness: ReadinessService,
  ) {}

  onApplicationBootstrap(): void {
    // The leader builds its module after the lock is taken: not ready until it has started
    // (and declared its consumer, whose own check then applies), as when this was one tick.
    this.readiness.register({
      name: 'active-session',
      check: () => this.leader.role !== 'active' || this.active !== undefined,
    });
    void this.lead();
  }

  private async lead(): Promise<void> {
    const [dataSource] = await Promise.all([this.database.whenReady(), this.nats.whenReady()]);
    if (this.stopping || !(await this.leader.acquire()) || this.stopping) return;
    const deps: SessionDeps = tracedSessionDeps({
      model: this.model,
      tools: this.tools,
      policy: this.policy,
      grants: this.grants,
    });
    const moduleRef = await this.modules.load(() =>
      ActiveSessionModule.forLeader(dataSource, deps),
    );
    // A shutdown while the module was built finds nothing started, and nothing starts after it.
    if (this.stopping) return;
    this.active = moduleRef.get(ActiveSession);
    this.active.start();
  }

  /** One parsed command delivery, once this instance leads (the consumer runs only then). */
  handleCommand(command: Command): Promise<void> {
    const handler = this.active?.commandHandler;
    if (handler === undefined) throw new TransientFailure('not_leading');
    return handler(command);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    // A standby has nothing to finish: stop waiting for the lock at once.
    if (this.leader.role === 'standby') await this.leader.release();
    if (this.active) await this.active.stop();
    else await this.consumers.beforeApplicationShutdown();
    await this.leader.release();
  }
}
