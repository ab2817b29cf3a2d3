import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import type { DeliveredMessage } from '@tollgate/messaging';
import { isObservable, lastValueFrom } from 'rxjs';
import type { ConsumerHost } from './consumer.host';
import { JetStreamContext } from './jetstream.context';
import type {
  JetStreamConsumerDeclaration,
  JetStreamConsumers,
} from './jetstream-consumers.registry';

/**
 * JetStream as a NestJS transport: each `@EventPattern` handler is fed by the durable consumer
 * declared for its pattern (JetStreamConsumers), through ConsumerHost and its ConsumerRunner,
 * so pulling, ack, nak with a growing delay, dead-lettering, per-key fairness, stall checks,
 * drain and reconnect are exactly the runner's. What the transport adds is Nest's pipeline:
 * guards, interceptors, pipes and exception filters run around the handler as for any
 * microservice. The handler's outcome settles the message — returned (or its observable
 * completed) → ack; an error → the runner's classification of it.
 *
 * Unlike a transport that owns its connection, this one shares the service's (NatsClient):
 * listen() only starts the consumers, which wait for NATS and their own preconditions, so the
 * HTTP side (health) answers meanwhile; close() drains them (ConsumerHost, idempotent).
 */
export class JetStreamTransport extends Server implements CustomTransportStrategy {
  constructor(
    private readonly host: ConsumerHost,
    private readonly consumers: JetStreamConsumers,
  ) {
    super();
  }

  /** A second handler for a pattern would settle the same message twice: refused at start. */
  override addHandler(
    pattern: unknown,
    callback: MessageHandler,
    isEventHandler = false,
    extras: Record<string, unknown> = {},
  ): void {
    if (this.messageHandlers.has(this.normalizePattern(pattern as string))) {
      throw new Error(`JetStream transport: a second handler for ${String(pattern)}`);
    }
    super.addHandler(pattern, callback, isEventHandler, extras);
  }

  listen(callback: (...optionalParams: unknown[]) => void): void {
    const handlers = this.getHandlers();
    const problems: string[] = [];
    for (const [pattern, handler] of handlers) {
      if (!handler.isEventHandler) problems.push(`${pattern}: only @EventPattern is supported`);
    }
    for (const { pattern } of this.consumers.all()) {
      if (!handlers.has(pattern)) problems.push(`${pattern}: declared but no @EventPattern`);
    }
    if (problems.length > 0) {
      callback(new Error(`JetStream transport: ${problems.join('; ')}`));
      return;
    }
    for (const declaration of this.consumers.all()) this.start(declaration);
    // Declared later (e.g. once a standby leads): started then.
    this.consumers.onDeclared((declaration) => this.start(declaration));
    callback();
  }

  private start({ pattern, definition, options }: JetStreamConsumerDeclaration): void {
    const handler = this.getHandlerByPattern(pattern);
    if (handler === null) {
      this.logger.error(`JetStream consumer ${definition.durable}: no @EventPattern('${pattern}')`);
      return;
    }
    this.host
      .run(definition, (message) => this.invoke(handler, pattern, message), options)
      .catch((error: unknown) => {
        this.logger.error(
          `JetStream consumer ${definition.durable} did not start: ${String(error)}`,
        );
      });
  }

  async close(): Promise<void> {
    await this.host.beforeApplicationShutdown();
  }

  /** Runs the handler through Nest's pipeline; resolves (ack) or rejects (the runner settles). */
  private async invoke(
    handler: MessageHandler,
    pattern: string,
    message: DeliveredMessage,
  ): Promise<void> {
    const result: unknown = await handler(message, new JetStreamContext([message, pattern]));
    if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
  }

  on(): never {
    throw new Error('JetStream transport: status events are not supported');
  }

  unwrap<T>(): T {
    throw new Error('JetStream transport: it shares the service connection (NatsClient)');
  }
}
