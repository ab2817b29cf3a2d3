import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { approvalApiConsumer } from '@tollgate/protocol';
import {
  type BaseConfig,
  DatabaseClient,
  JetStreamConsumers,
  SERVICE_CONFIG,
} from '@tollgate/service-runtime';
import { DECISIONS_PATTERN } from './decisions.controller';

/** Declares the `approval-api` durable on the decisions, pulled once PostgreSQL is migrated. */
@Injectable()
export class DecisionConsumer implements OnApplicationBootstrap {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: BaseConfig,
    private readonly database: DatabaseClient,
    private readonly jetstream: JetStreamConsumers,
  ) {}

  onApplicationBootstrap(): void {
    this.jetstream.declare(
      DECISIONS_PATTERN,
      approvalApiConsumer(this.config.TOLLGATE_SUBJECT_PREFIX, this.config.TOLLGATE_ACK_WAIT_MS),
      { after: this.database.whenReady() },
    );
  }
}
