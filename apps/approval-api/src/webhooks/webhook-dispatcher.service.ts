import { randomUUID } from 'node:crypto';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DatabaseClient, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { approvalView } from '../approvals/approval.view';
import type { ApprovalApiConfig } from '../approval-api.config';
import { APPROVAL_API_CONFIG } from '../approval-api.tokens';
import { type ClaimedDelivery, WebhookDeliveries } from './webhook-deliveries.repository';
import { webhookRetryDelayMs } from './webhook-retry';
import { webhookSignature } from './webhook-signature';

const POLL_MS = 250;
const BATCH = 16;

/**
 * Sends due webhook deliveries: signed, at least once, the same `Tollgate-Delivery` on every
 * attempt, retried with a doubling delay until a 2xx or 24 hours. Polls the table (a due
 * retry is a row whose time came, whichever replica queued it) and is kicked at once when
 * this replica queues a decision.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private readonly logger: Logger;
  // An instance id so logs tell replicas apart when two claim in turn.
  private readonly instance = randomUUID().slice(0, 8);

  constructor(
    @Inject(APPROVAL_API_CONFIG) private readonly config: ApprovalApiConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    private readonly deliveries: WebhookDeliveries,
    private readonly database: DatabaseClient,
  ) {
    this.logger = logger.child({ component: 'webhooks', instance: this.instance });
  }

  onApplicationBootstrap(): void {
    void this.database.whenReady().then(() => this.schedule(0));
  }

  kick(): void {
    if (!this.stopped && this.running === undefined) this.schedule(0);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep().finally(() => {
        this.running = undefined;
        this.schedule(POLL_MS);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    try {
      const leaseMs = this.config.TOLLGATE_WEBHOOK_TIMEOUT_MS + 5_000;
      for (;;) {
        const due = await this.deliveries.claimDue(BATCH, leaseMs);
        await Promise.all(due.map((delivery) => this.attempt(delivery)));
        if (due.length < BATCH || this.stopped) return;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'webhook sweep failed; trying again shortly');
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const body = JSON.stringify(approvalView(delivery.approval));
    const failure = await this.post(delivery, body);
    if (failure === undefined) {
      await this.deliveries.delivered(delivery.id);
      return;
    }
    const delay = webhookRetryDelayMs(
      delivery.attempts + 1,
      this.config.TOLLGATE_WEBHOOK_RETRY_BASE_MS,
    );
    const outcome = await this.deliveries.failed(delivery.id, failure, delay);
    this.logger[outcome === 'abandoned' ? 'error' : 'info'](
      {
        delivery: delivery.id,
        approvalId: delivery.approval.id,
        attempts: delivery.attempts + 1,
        failure,
      },
      outcome === 'abandoned'
        ? 'webhook abandoned after its retry horizon'
        : 'webhook will be retried',
    );
  }

  /** Undefined on a 2xx, else why not; the URL is not logged (it may carry a token). */
  private async post(delivery: ClaimedDelivery, body: string): Promise<string | undefined> {
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Tollgate-Delivery': delivery.id,
          'Tollgate-Signature': webhookSignature(
            delivery.secret,
            body,
            Math.floor(Date.now() / 1_000),
          ),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.config.TOLLGATE_WEBHOOK_TIMEOUT_MS),
      });
      await response.body?.cancel().catch(() => undefined);
      return response.status >= 200 && response.status < 300
        ? undefined
        : `HTTP ${response.status}`;
    } catch (error) {
      return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
