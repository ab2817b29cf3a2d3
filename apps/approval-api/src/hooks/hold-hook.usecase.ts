import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ApprovalClient } from '@tollgate/approval-clients';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { ApprovalLifecycle } from '../approvals/approval-lifecycle.usecase';
import type { ApprovalRecord } from '../approvals/approval.view';
import { CreateApproval } from '../approvals/create-approval.usecase';
import { DecisionWaiters } from '../decisions/decision-waiters';
import type { ApprovalApiConfig } from '../approval-api.config';
import { APPROVAL_API_CONFIG } from '../approval-api.tokens';
import { ApiError } from '../http/api-error';
import { type HookVerdict, RESTARTING_VERDICT, unansweredVerdict, verdictOf } from './hook-answer';
import type { HookAsk } from './hook-body.rules';

/** `channel`, `thread` and `approver` of the hook URL's query, which narrow the client's route. */
export interface HookNarrowing {
  readonly channel?: unknown;
  readonly thread?: unknown;
  readonly approver?: unknown;
}

/**
 * A runtime hook's ask, held until decided: it creates an approval (a fresh one per ask, so
 * two identical asks are two prompts), waits for its decision, and answers the verdict. When
 * the hold ends undecided it withdraws the approval and denies — a tool never runs on
 * silence.
 */
@Injectable()
export class HoldHook {
  private readonly logger: Logger;

  constructor(
    @Inject(APPROVAL_API_CONFIG) private readonly config: ApprovalApiConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    private readonly createApproval: CreateApproval,
    private readonly lifecycle: ApprovalLifecycle,
    private readonly waiters: DecisionWaiters,
  ) {
    this.logger = logger.child({ component: 'hooks' });
  }

  async hold(
    client: ApprovalClient,
    agentName: string,
    ask: HookAsk,
    narrowing: HookNarrowing,
  ): Promise<HookVerdict> {
    const created = await this.createApproval.create(client, `hook:${randomUUID()}`, {
      tool: ask.tool,
      arguments: ask.toolInput,
      ...(ask.summary === undefined ? {} : { summary: ask.summary }),
      agent: { name: agentName, session: ask.sessionId },
      ...routeOf(narrowing),
      ...approversOf(narrowing),
    });
    const holdMs = this.config.TOLLGATE_HOOK_HOLD_S * 1_000;
    const record = await this.lifecycle.waitFor(client, created.record.id, holdMs);
    if (record.status !== 'pending') return verdictOf(record);
    const withdrawn = await this.withdraw(client, record);
    if (withdrawn.status !== 'pending' && withdrawn.status !== 'cancelled')
      return verdictOf(withdrawn);
    return this.waiters.shuttingDown
      ? RESTARTING_VERDICT
      : unansweredVerdict(this.config.TOLLGATE_HOOK_HOLD_S, record.route.platform);
  }

  /** Cancels the undecided approval; a decision that won the race is answered instead. */
  private async withdraw(client: ApprovalClient, record: ApprovalRecord): Promise<ApprovalRecord> {
    try {
      return await this.lifecycle.cancel(client, record.id);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_pending')
        return this.lifecycle.read(client, record.id);
      // The approval stays pending in chat; the tool still does not run.
      this.logger.warn({ err: error, approvalId: record.id }, 'could not withdraw a held hook');
      return record;
    }
  }
}

function routeOf(narrowing: HookNarrowing): { route?: Record<string, string> } {
  const route: Record<string, string> = {};
  if (typeof narrowing.channel === 'string') route.channel = narrowing.channel;
  if (typeof narrowing.thread === 'string') route.thread = narrowing.thread;
  if (narrowing.channel !== undefined && typeof narrowing.channel !== 'string')
    throw new ApiError(400, 'invalid_route', 'channel must be given once');
  if (narrowing.thread !== undefined && typeof narrowing.thread !== 'string')
    throw new ApiError(400, 'invalid_route', 'thread must be given once');
  return Object.keys(route).length === 0 ? {} : { route };
}

function approversOf(narrowing: HookNarrowing): { approvers?: unknown[] } {
  const raw = narrowing.approver;
  if (raw === undefined) return {};
  return { approvers: Array.isArray(raw) ? raw : [raw] };
}
