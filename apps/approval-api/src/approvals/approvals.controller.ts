import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard';
import { ApiError, notFound } from '../http/api-error';
import { ApiExceptionFilter } from '../http/api-exception.filter';
import { approvalView } from './approval.view';
import { ApprovalLifecycle } from './approval-lifecycle.usecase';
import { CreateApproval } from './create-approval.usecase';

const APPROVAL_ID = /^apr_[0-9a-z]{26}$/;
const MAX_WAIT_S = 60;

/** The approval API of docs/protocol.md: thin bindings of each route to its use case. */
@Controller('v1/approvals')
@UseGuards(ApiKeyGuard)
@UseFilters(ApiExceptionFilter)
export class ApprovalsController {
  constructor(
    private readonly createApproval: CreateApproval,
    private readonly lifecycle: ApprovalLifecycle,
  ) {}

  @Post()
  async create(
    @Req() req: AuthenticatedRequest,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Record<string, unknown>> {
    const created = await this.createApproval.create(req.client, idempotencyKey, body);
    res.status(created.status);
    return approvalView(created.record);
  }

  @Get(':id')
  async read(
    @Req() req: AuthenticatedRequest,
    @Param('id') id: string,
    @Query('wait') wait: unknown,
  ): Promise<Record<string, unknown>> {
    const waitS = waitSecondsOf(wait);
    const record = await this.lifecycle.waitFor(req.client, checkedId(id), waitS * 1_000);
    return approvalView(record);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(
    @Req() req: AuthenticatedRequest,
    @Param('id') id: string,
  ): Promise<Record<string, unknown>> {
    return approvalView(await this.lifecycle.cancel(req.client, checkedId(id)));
  }

  @Post(':id/redeem')
  @HttpCode(200)
  async redeem(
    @Req() req: AuthenticatedRequest,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<Record<string, unknown>> {
    return approvalView(await this.lifecycle.redeem(req.client, checkedId(id), body));
  }
}

function checkedId(id: string): string {
  if (!APPROVAL_ID.test(id)) throw notFound();
  return id;
}

/** `?wait=` in seconds, at most 60 (more is held for 60); absent or 0 answers at once. */
function waitSecondsOf(raw: unknown): number {
  if (raw === undefined) return 0;
  if (typeof raw !== 'string' || !/^\d{1,6}(\.\d{1,3})?$/.test(raw))
    throw new ApiError(400, 'invalid_wait', 'wait must be a number of seconds, at most 60');
  return Math.min(Number(raw), MAX_WAIT_S);
}
