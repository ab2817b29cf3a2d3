import { type DynamicModule, Module } from '@nestjs/common';
import type { ProvisionPlan } from '@tollgate/messaging';
import type { MigrationClass } from '@tollgate/persistence';
import { ConsumerHost } from './consumer.host';
import { JetStreamConsumers } from './jetstream-consumers.registry';
import { DATABASE_MIGRATIONS, DatabaseClient } from './database.client';
import { NATS_PROVISION_PLAN, NatsClient } from './nats.client';

/** NATS (with the streams this service uses), PostgreSQL (with its migrations), consumers. */
@Module({})
export class InfrastructureModule {
  static forRoot(options: {
    provisionPlan: ProvisionPlan;
    migrations: readonly MigrationClass[];
  }): DynamicModule {
    return {
      module: InfrastructureModule,
      global: true,
      providers: [
        { provide: NATS_PROVISION_PLAN, useValue: options.provisionPlan },
        { provide: DATABASE_MIGRATIONS, useValue: options.migrations },
        NatsClient,
        DatabaseClient,
        ConsumerHost,
        JetStreamConsumers,
      ],
      exports: [NatsClient, DatabaseClient, ConsumerHost, JetStreamConsumers],
    };
  }
}
