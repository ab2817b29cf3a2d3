import { Injectable } from '@nestjs/common';
import { type ApprovalCancel, type ApprovalRequest, Subjects } from '@tollgate/protocol';
import { type BaseConfig, NatsClient, SERVICE_CONFIG } from '@tollgate/service-runtime';
import { Inject } from '@nestjs/common';
import { ApiError } from '../http/api-error';

const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * Publishes approval commands and returns only once JetStream stored them: an answer of 202
 * means the session service will see the request. Nats-Msg-Id is the command id, so a retry
 * (the same Idempotency-Key after a 503) is stored once.
 */
@Injectable()
export class CommandPublisher {
  private readonly subjects: Subjects;

  constructor(
    @Inject(SERVICE_CONFIG) config: BaseConfig,
    private readonly nats: NatsClient,
  ) {
    this.subjects = new Subjects(config.TOLLGATE_SUBJECT_PREFIX);
  }

  async publish(command: ApprovalRequest | ApprovalCancel): Promise<void> {
    const kind = command.type === 'ApprovalRequest' ? 'approval' : 'cancel';
    try {
      await this.nats.publisher.publish(
        this.subjects.apiCommand(command.sessionId, kind),
        command,
        {
          msgId: command.id,
          timeoutMs: PUBLISH_TIMEOUT_MS,
        },
      );
    } catch {
      throw new ApiError(
        503,
        'unavailable',
        'the command stream did not take the request; retry with the same Idempotency-Key',
      );
    }
  }
}
