import { Inject, Injectable, type PipeTransform } from '@nestjs/common';
import { type DeliveredMessage, InvalidPayload, PermanentFailure } from '@tollgate/messaging';
import { type ApprovalDecided, parseApprovalDecided, Subjects } from '@tollgate/protocol';
import { type BaseConfig, SERVICE_CONFIG } from '@tollgate/service-runtime';

/**
 * Parses a decision delivery at the `@EventPattern` boundary (docs/protocol.md §8.4), so
 * `ApplyDecision` only ever sees a valid event of the client and approval its subject names.
 * A refusal dead-letters the message with its reason code: `invalid_payload: …` for a
 * malformed event, `subject_mismatch: …` for one whose subject names another client or
 * approval (not malformed, but applying it would decide an approval the subject — and so the
 * publisher's permissions — did not name).
 */
export function parseDecisionDelivery(
  subjects: Subjects,
  message: DeliveredMessage,
): ApprovalDecided {
  const parsed = parseApprovalDecided(message.data);
  if (!parsed.ok) throw new InvalidPayload(`${parsed.reason}: ${parsed.detail}`);
  const event = parsed.value;
  const routed = subjects.parseDecisionSubject(message.subject);
  if (
    !routed.ok ||
    routed.value.clientId !== event.clientId ||
    routed.value.approvalId !== event.approvalId
  ) {
    throw new PermanentFailure(
      `subject_mismatch: subject ${message.subject} does not name the event's client and approval`,
    );
  }
  return event;
}

@Injectable()
export class ParseDecisionPipe implements PipeTransform<DeliveredMessage, ApprovalDecided> {
  private readonly subjects: Subjects;

  constructor(@Inject(SERVICE_CONFIG) config: BaseConfig) {
    this.subjects = new Subjects(config.TOLLGATE_SUBJECT_PREFIX);
  }

  transform(message: DeliveredMessage): ApprovalDecided {
    return parseDecisionDelivery(this.subjects, message);
  }
}
