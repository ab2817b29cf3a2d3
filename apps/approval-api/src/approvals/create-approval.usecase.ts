import { Injectable } from '@nestjs/common';
import type { ApprovalClient } from '@tollgate/approval-clients';
import { approvalRequestSchema } from '@tollgate/protocol';
import { canonicalize } from 'json-canonicalize';
import { ApiError } from '../http/api-error';
import { checkApprovalBody } from './approval-body.rules';
import { approvalRequestOf } from './approval-commands';
import { newApprovalId } from './approval-id';
import type { ApprovalRecord } from './approval.view';
import { ApprovalsRepository } from './approvals.repository';
import { CommandPublisher } from './command-publisher';
import { inSpan, SpanKind } from '@tollgate/telemetry';

const REQUEST_SPAN = { kind: SpanKind.SERVER } as const;

export interface Created {
  /** 202 for a new approval, 200 for the same Idempotency-Key and an equal body. */
  readonly status: 200 | 202;
  readonly record: ApprovalRecord;
}

/**
 * `POST /v1/approvals`: validate, store the approval under the client's Idempotency-Key, and
 * publish its command, answering only once JetStream has it. The row comes first, so a
 * publish that fails leaves a pending approval the same key's retry publishes; the command's
 * Nats-Msg-Id (its id) makes two publishes of it one.
 */
@Injectable()
export class CreateApproval {
  constructor(
    private readonly approvals: ApprovalsRepository,
    private readonly publisher: CommandPublisher,
  ) {}

  async create(
    client: ApprovalClient,
    /** Checked at the boundary (IdempotencyKeyPipe), or made by Tollgate itself. */
    idempotencyKey: string,
    body: unknown,
    now = new Date(),
  ): Promise<Created> {
    const verdict = checkApprovalBody(body, client);
    if (!verdict.ok) throw new ApiError(verdict.status, verdict.code, verdict.message);
    const command = approvalRequestOf(newApprovalId(), client, verdict.ask, now);
    const checked = approvalRequestSchema.safeParse(command);
    if (!checked.success) {
      throw new ApiError(400, 'invalid_body', checked.error.issues[0]?.message ?? 'invalid');
    }
    const requestBody = canonicalize(body);
    const { created, stored } = await this.approvals.insertOrFind({
      id: command.approvalId,
      clientId: client.id,
      idempotencyKey,
      requestBody,
      command,
      agent: verdict.ask.agent,
      route: verdict.ask.route,
    });
    if (!created && stored.requestBody !== requestBody) {
      throw new ApiError(
        409,
        'idempotency_key_reused',
        'this Idempotency-Key was used with another body',
      );
    }
    // A repeat of a pending approval publishes it again: its first publish may have failed
    // (503), and a second is harmless (same Nats-Msg-Id, and the session drops a duplicate).
    // The approval's trace starts here and runs through its prompt, the click and the decision.
    if (created || stored.record.status === 'pending') {
      await inSpan('approval-api request', REQUEST_SPAN, (span) => {
        span?.setAttribute('tollgate.approval.id', stored.command.approvalId);
        return this.publisher.publish(stored.command);
      });
    }
    return { status: created ? 202 : 200, record: stored.record };
  }
}
