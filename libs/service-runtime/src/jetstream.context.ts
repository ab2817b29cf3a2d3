import { BaseRpcContext } from '@nestjs/microservices';
import type { DeliveredMessage } from '@tollgate/messaging';

/**
 * What `@Ctx()` gives a JetStream `@EventPattern` handler: the delivery (subject, stream
 * sequence, delivery count, headers, `working()` to extend its ack wait) and the pattern that
 * routed it. Settling is the transport's, from what the handler did.
 */
export class JetStreamContext extends BaseRpcContext<[DeliveredMessage, string]> {
  getMessage(): DeliveredMessage {
    return this.args[0];
  }

  getPattern(): string {
    return this.args[1];
  }
}
