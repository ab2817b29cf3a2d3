import { type AuditDatabase, sealAudit } from '@tollgate/audit';
import type { Logger } from 'pino';

export interface AuditSealerPollerOptions {
  readonly database: AuditDatabase;
  readonly logger: Logger;
  readonly intervalMs: number;
}

/**
 * G4: links the audit entries decisions committed unchained into their day's chain, every
 * `intervalMs` in the active instance. The first tick runs at once, so entries a crashed
 * predecessor committed but never sealed are linked right after a restart or failover; a
 * tick still running makes the next one wait. Sealing is safe from any process at any time
 * (sealAudit's lock), so the CLI and a standby that just lost the lease cannot fork a day.
 */
export class AuditSealerPoller {
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<number>;
  private stopped = false;
  private readonly logger: Logger;

  constructor(private readonly options: AuditSealerPollerOptions) {
    this.logger = options.logger.child({ component: 'audit-sealer' });
  }

  start(): void {
    if (this.stopped || this.timer) return;
    const run = () => {
      if (this.stopped || this.ticking) return;
      this.tick().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'sealing audit entries failed; trying again'),
      );
    };
    this.timer = setInterval(run, this.options.intervalMs);
    this.timer.unref();
    run();
  }

  /** Stops ticking, then waits for a tick under way (its transaction commits or rolls back). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking?.catch(() => undefined);
  }

  /** Seals every committed entry not linked yet; resolves with how many. */
  tick(): Promise<number> {
    if (this.ticking) return this.ticking;
    const ticking = sealAudit(this.options.database).finally(() => (this.ticking = undefined));
    this.ticking = ticking;
    return ticking;
  }
}
