import { Inject, Injectable, type PipeTransform } from '@nestjs/common';
import { type DeliveredMessage, InvalidPayload, PermanentFailure } from '@tollgate/messaging';
import { type Command, parseCommandForSubject, Subjects } from '@tollgate/protocol';
import { type BaseConfig, SERVICE_CONFIG } from '@tollgate/service-runtime';

/**
 * Parses a command delivery at the `@EventPattern` boundary against the protocol's schema and
 * the subject it came on, so the handler only ever sees a valid command. A refusal carries its
 * reason code and dead-letters the message (the consumer keeps going): `invalid_payload: …`
 * for a malformed one, `platform_mismatch: …` for one sent for another platform's session
 * (not malformed: the sender's NATS permissions cover the subject's platform).
 */
export function parseCommandDelivery(subjects: Subjects, message: DeliveredMessage): Command {
  const parsed = parseCommandForSubject(subjects, message.subject, message.data);
  if (parsed.ok) return parsed.value;
  if (parsed.reason === 'platform_mismatch') {
    throw new PermanentFailure(`${parsed.reason}: ${parsed.detail}`);
  }
  throw new InvalidPayload(`${parsed.reason}: ${parsed.detail}`);
}

@Injectable()
export class ParseCommandPipe implements PipeTransform<DeliveredMessage, Command> {
  private readonly subjects: Subjects;

  constructor(@Inject(SERVICE_CONFIG) config: BaseConfig) {
    this.subjects = new Subjects(config.TOLLGATE_SUBJECT_PREFIX);
  }

  transform(message: DeliveredMessage): Command {
    return parseCommandDelivery(this.subjects, message);
  }
}
