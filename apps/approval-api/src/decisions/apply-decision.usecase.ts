import { Inject, Injectable } from '@nestjs/common';
import { InvalidPayload } from '@tollgate/messaging';
import { parseApprovalDecided, Subjects } from '@tollgate/protocol';
import {
  type BaseConfig,
  DatabaseClient,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@tollgate/service-runtime';
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
  private readonly subjects: Subjects;
  private readonly logger: Logger;

  constructor(
    @Inject(SERVICE_CONFIG) config: BaseConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    private readonly database: DatabaseClient,
    private readonly approvals: ApprovalsRepository,
    private readonly deliveries: WebhookDeliveries,
    private readonly waiters: DecisionWaiters,
    private readonly webhooks: WebhookDispatcher,
  ) {
    this.subjects = new Subjects(config.TOLLGATE_SUBJECT_PREFIX);
    this.logger = logger.child({ component: 'decisions' });
  }

  async handle(subject: string, data: Uint8Array): Promise<void> {
    const parsed = parseApprovalDecided(data);
    if (!parsed.ok) throw new InvalidPayload(`${parsed.reason}: ${parsed.detail}`);
    const event = parsed.value;
    const routed = this.subjects.parseDecisionSubject(subject);
    if (
      !routed.ok ||
      routed.value.clientId !== event.clientId ||
      routed.value.approvalId !== event.approvalId
    ) {
      throw new InvalidPayload(`subject ${subject} does not name the event's client and approval`);
    }
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
