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
 * them here at bootstrap, and the transport pairs them with the handlers when it listens.
 */
@Injectable()
export class JetStreamConsumers {
  private readonly declared = new Map<string, JetStreamConsumerDeclaration>();

  declare(
    pattern: string,
    definition: ConsumerDefinition,
    options: JetStreamConsumerOptions = {},
  ): void {
    if (this.declared.has(pattern)) {
      throw new Error(`a JetStream consumer is already declared for "${pattern}"`);
    }
    this.declared.set(pattern, { pattern, definition, options });
  }

  get(pattern: string): JetStreamConsumerDeclaration | undefined {
    return this.declared.get(pattern);
  }

  all(): JetStreamConsumerDeclaration[] {
    return [...this.declared.values()];
  }
}
