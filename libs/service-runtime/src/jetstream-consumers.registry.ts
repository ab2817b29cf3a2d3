import { Injectable } from '@nestjs/common';
import type { ConsumerDefinition, KeyFairness, ConsumerRunnerOptions } from '@tollgate/messaging';

/** How one durable consumer is run for an `@EventPattern` (ConsumerHost.run's options). */
export interface JetStreamConsumerOptions {
  maxInFlight?: number;
  /** Pulling starts once this settles (migrations, recovery, …). */
  after?: Promise<unknown>;
  fairness?: KeyFairness;
  confirmAcks?: boolean;
  maxHeld?: number;
  triage?: ConsumerRunnerOptions['triage'];
}

export interface JetStreamConsumerDeclaration {
  readonly pattern: string;
  readonly definition: ConsumerDefinition;
  readonly options: JetStreamConsumerOptions;
}

/**
 * Which durable consumer feeds which `@EventPattern`. The pattern names the role (e.g.
 * `binding.outputs`), not a subject: the durable's filter and settings come from provisioning
 * and the service's config, known only at run time, so the provider that owns them declares
 * them here, and the transport pairs them with the handlers. A declaration may come at
 * bootstrap or later (a standby declares its consumer only once it leads); the transport
 * starts each consumer as it is declared.
 */
@Injectable()
export class JetStreamConsumers {
  private readonly declared = new Map<string, JetStreamConsumerDeclaration>();
  private listener?: (declaration: JetStreamConsumerDeclaration) => void;

  declare(
    pattern: string,
    definition: ConsumerDefinition,
    options: JetStreamConsumerOptions = {},
  ): void {
    if (this.declared.has(pattern)) {
      throw new Error(`a JetStream consumer is already declared for "${pattern}"`);
    }
    const declaration = { pattern, definition, options };
    this.declared.set(pattern, declaration);
    this.listener?.(declaration);
  }

  /** Called with every declaration made from now on (one listener: the transport). */
  onDeclared(listener: (declaration: JetStreamConsumerDeclaration) => void): void {
    this.listener = listener;
  }

  get(pattern: string): JetStreamConsumerDeclaration | undefined {
    return this.declared.get(pattern);
  }

  all(): JetStreamConsumerDeclaration[] {
    return [...this.declared.values()];
  }
}
