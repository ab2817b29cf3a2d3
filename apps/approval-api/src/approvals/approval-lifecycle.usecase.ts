import { Injectable } from '@nestjs/common';
import type { ApprovalClient } from '@tollgate/approval-clients';
import { DecisionWaiters } from '../decisions/decision-waiters';
import { ApiError, notFound } from '../http/api-error';
import { approvalCancelOf } from './approval-commands';
import type { ApprovalRecord } from './approval.view';
import { ApprovalsRepository } from './approvals.repository';
import { CommandPublisher } from './command-publisher';

/** Reading, waiting on, cancelling and redeeming one client's approval. */
@Injectable()
export class ApprovalLifecycle {
  constructor(
    private readonly approvals: ApprovalsRepository,
    private readonly publisher: CommandPublisher,
    private readonly waiters: DecisionWaiters,
  ) {}

  async read(client: ApprovalClient, id: string): Promise<ApprovalRecord> {
    const record = await this.approvals.find(client.id, id);
    if (record === undefined) throw notFound();
    return record;
  }

  /**
   * The approval once it is no longer pending, or as it is when `waitMs` ends. The waiter is
   * registered before the second read, so a decision between the two reads still wakes it.
   */
  async waitFor(client: ApprovalClient, id: string, waitMs: number): Promise<ApprovalRecord> {
    const first = await this.read(client, id);
    if (first.status !== 'pending' || waitMs <= 0) return first;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const wait = this.waiters.wait(id, Math.max(0, deadline - Date.now()));
      const current = await this.read(client, id);
      if (current.status !== 'pending' || Date.now() >= deadline || this.waiters.shuttingDown) {
        wait.cancel();
        return current;
      }
      await wait.settled;
      const after = await this.read(client, id);
      if (after.status !== 'pending' || Date.now() >= deadline || this.waiters.shuttingDown)
        return after;
    }
  }

  async cancel(client: ApprovalClient, id: string): Promise<ApprovalRecord> {
    const stored = await this.approvals.findStored(client.id, id);
    if (stored === undefined) throw notFound();
    if (stored.record.status !== 'pending') throw notPending(stored.record.status);
    // Published before the row changes: if NATS is away the approval stays pending (503).
    await this.publisher.publish(approvalCancelOf(stored.command, new Date()));
    const cancelled = await this.approvals.cancel(client.id, id, this.waiters.notification(id));
    if (cancelled === undefined) {
      // The session service may have decided our own cancel, and its ApprovalDecided been
      // applied here, before this UPDATE ran: that is this request's success, not a conflict
      // (only an agent's cancel ends an approval `cancelled`). A click that won the race
      // leaves it approved or denied, which is a conflict.
      const now = await this.read(client, id);
      if (now.status === 'cancelled') return now;
      throw notPending(now.status);
    }
    this.waiters.wake(id);
    return cancelled;
  }

  /** `hash` was checked at the boundary (ArgumentsHashPipe). */
  async redeem(client: ApprovalClient, id: string, hash: string): Promise<ApprovalRecord> {
    const outcome = await this.approvals.redeem(client.id, id, hash);
    switch (outcome.kind) {
      case 'redeemed':
        return outcome.record;
      case 'not_found':
        throw notFound();
      case 'already_redeemed':
        throw new ApiError(409, 'already_redeemed', 'this approval was already redeemed');
      case 'not_approved':
        throw new ApiError(409, 'not_approved', 'this approval is not approved');
      case 'arguments_mismatch':
        throw new ApiError(
          422,
          'arguments_mismatch',
          'the arguments hash is not the one that was approved',
        );
    }
  }
}

function notPending(status: string): ApiError {
  return new ApiError(409, 'not_pending', `the approval is ${status}, not pending`);
}
