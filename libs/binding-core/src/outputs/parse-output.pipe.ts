import { Inject, Injectable, type PipeTransform } from '@nestjs/common';
import { type DeliveredMessage, InvalidPayload } from '@tollgate/messaging';
import { type Output, parseOutputForSubject, Subjects } from '@tollgate/protocol';
import { type BaseConfig, SERVICE_CONFIG } from '@tollgate/service-runtime';

/** An output delivery the protocol accepted, with the delivery it came in. */
export interface ParsedOutput {
  readonly output: Output;
  readonly message: DeliveredMessage;
}

/**
 * Parses an output delivery at the `@EventPattern` boundary against the protocol's schema and
 * the subject it came on, so the handler only ever sees a valid output; a refusal carries its
 * reason code (`invalid_payload: …`) and dead-letters the message (the consumer keeps going).
 */
export function parseOutputDelivery(subjects: Subjects, message: DeliveredMessage): ParsedOutput {
  const parsed = parseOutputForSubject(subjects, message.subject, message.data);
  if (!parsed.ok) throw new InvalidPayload(`${parsed.reason}: ${parsed.detail}`);
  return { output: parsed.value, message };
}

@Injectable()
export class ParseOutputPipe implements PipeTransform<DeliveredMessage, ParsedOutput> {
  private readonly subjects: Subjects;

  constructor(@Inject(SERVICE_CONFIG) config: BaseConfig) {
    this.subjects = new Subjects(config.TOLLGATE_SUBJECT_PREFIX);
  }

  transform(message: DeliveredMessage): ParsedOutput {
    return parseOutputDelivery(this.subjects, message);
  }
}
