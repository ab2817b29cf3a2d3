import { type DynamicModule, Module } from '@nestjs/common';
import { ApprovalClientsRepository } from '@tollgate/approval-clients';
import {
  DatabaseClient,
  InfrastructureModule,
  ServiceRuntimeModule,
} from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { ApprovalApiConfig } from './approval-api.config';
import { approvalApiProvisionPlan } from './approval-api.provision';
import { APPROVAL_API_CONFIG } from './approval-api.tokens';
import { ApprovalLifecycle } from './approvals/approval-lifecycle.usecase';
import { ApprovalsController } from './approvals/approvals.controller';
import { ApprovalsRepository } from './approvals/approvals.repository';
import { CommandPublisher } from './approvals/command-publisher';
import { CreateApproval } from './approvals/create-approval.usecase';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ClientAuthenticator } from './auth/client-authenticator';
import { ApplyDecision } from './decisions/apply-decision.usecase';
import { DecisionConsumer } from './decisions/decision-consumer';
import { DecisionWaiters } from './decisions/decision-waiters';
import { DecisionsController } from './decisions/decisions.controller';
import { HoldHook } from './hooks/hold-hook.usecase';
import { HooksController } from './hooks/hooks.controller';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { MIGRATIONS } from './migrations';
import { WebhookDeliveries } from './webhooks/webhook-deliveries.repository';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.service';

@Module({})
export class ApprovalApiModule {
  static forRoot(config: ApprovalApiConfig, logger: Logger): DynamicModule {
    return {
      module: ApprovalApiModule,
      imports: [
        ServiceRuntimeModule.forRoot(config, logger),
        InfrastructureModule.forRoot({
          provisionPlan: approvalApiProvisionPlan(config),
          migrations: MIGRATIONS,
        }),
      ],
      controllers: [ApprovalsController, HooksController, DecisionsController],
      providers: [
        { provide: APPROVAL_API_CONFIG, useValue: config },
        {
          provide: ApprovalClientsRepository,
          useFactory: (database: DatabaseClient) =>
            new ApprovalClientsRepository(() => database.whenReady()),
          inject: [DatabaseClient],
        },
        {
          provide: ApprovalsRepository,
          useFactory: (database: DatabaseClient) =>
            new ApprovalsRepository(() => database.whenReady()),
          inject: [DatabaseClient],
        },
        {
          provide: ClientAuthenticator,
          useFactory: (clients: ApprovalClientsRepository) => new ClientAuthenticator(clients),
          inject: [ApprovalClientsRepository],
        },
        ApiKeyGuard,
        ApiExceptionFilter,
        CommandPublisher,
        CreateApproval,
        ApprovalLifecycle,
        DecisionWaiters,
        ApplyDecision,
        DecisionConsumer,
        WebhookDeliveries,
        WebhookDispatcher,
        HoldHook,
      ],
    };
  }
}
