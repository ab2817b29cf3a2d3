import { Inject, Injectable } from '@nestjs/common';
import type { ApprovalDecided } from '@tollgate/protocol';
import { DatabaseClient, SERVICE_LOGGER } from '@tollgate/service-runtime';
import { inSpan } from '@tollgate/telemetry';
import type { Logger } from 'pino';
import { ApprovalsRepository, notifyIn } from '../approvals/approvals.repository';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.repository';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.service';
import { DecisionWaiters } from './decision-waiters';

/**
 * One `ApprovalDecided` event into the read model: the approval takes its status and decision
 * (only while pending, so a redelivery changes nothing), its webhook delivery is queued, and
 * every replica's waiters are told — all in one transaction, so a crash between them loses
 * nothing: the event is acked only after the commit and redelivered otherwise.
 */
@Injectable()
export class ApplyDecision {
  private readonly logger: Logger;

  constructor(
    @Inject(SERVICE_LOGGER) logger: Logger,
    private readonly database: DatabaseClient,
    private readonly approvals: ApprovalsRepository,
    private readonly deliveries: WebhookDeliveries,
    private readonly waiters: DecisionWaiters,
    private readonly webhooks: WebhookDispatcher,
  ) {
    this.logger = logger.child({ component: 'decisions' });
  }

  /** `event` was parsed and checked against its subject at the boundary (ParseDecisionPipe). */
  async handle(event: ApprovalDecided): Promise<void> {
    const dataSource = await this.database.whenReady();
    // Under the delivery's span, so the decision closes the trace its request opened.
    const applied = await inSpan('approval-api decision', {}, (span) => {
      span?.setAttribute('tollgate.approval.id', event.approvalId);
      span?.setAttribute('tollgate.approval.status', event.status);
      return dataSource.transaction(async (manager) => {
        const updated = await this.approvals.applyDecision(manager, event);
        if (updated === undefined) return false;
        await this.deliveries.enqueue(manager, updated.id, updated.clientId);
        await notifyIn(manager, this.waiters.notification(updated.id));
        return true;
      });
    });
    this.logger.debug(
      { approvalId: event.approvalId, status: event.status, applied },
      applied ? 'decision applied' : 'decision already applied, cancelled or unknown',
    );
    if (applied) {
      this.waiters.wake(event.approvalId);
      this.webhooks.kick();
    }
  }
}
