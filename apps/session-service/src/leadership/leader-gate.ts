import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  FatalFailures,
  ReadinessService,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { SessionServiceConfig } from '../session-service.config';
import { LeaderLock, type LeaderRole } from './leader-lock';

/**
 * The gate the session service's work stands behind, as a Nest provider: the leader lock of
 * its schema, its role on /health/ready, and what losing it means. A lost lock is reported as
 * a FatalFailure (the entry point ends the process; the orchestrator restarts it as a
 * standby), since another instance may already hold it.
 */
@Injectable()
export class LeaderGate implements OnApplicationBootstrap {
  private readonly lock: LeaderLock;

  constructor(
    @Inject(SERVICE_CONFIG) config: SessionServiceConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    private readonly readiness: ReadinessService,
    fatal: FatalFailures,
  ) {
    this.lock = new LeaderLock({
      databaseUrl: config.DATABASE_URL,
      schema: config.DATABASE_SCHEMA,
      logger,
      // Optimistic concurrency on the journal covers whatever this one was doing meanwhile.
      onLost: (error) => fatal.report('lost the leader lock connection', error),
    });
  }

  onApplicationBootstrap(): void {
    // Ready once the role is known: a standby answers 200 without a consumer, the active
    // instance registers its consumer check in the same tick as it takes the lock.
    this.readiness.register({ name: 'leadership', check: () => this.lock.decided });
    this.readiness.describe('role', () => this.lock.role);
  }

  get role(): LeaderRole {
    return this.lock.role;
  }

  /** Waits until this instance leads; false when released (a shutdown) first. */
  acquire(): Promise<boolean> {
    return this.lock.acquire();
  }

  release(): Promise<void> {
    return this.lock.release();
  }
}
