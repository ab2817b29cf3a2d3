import {
  Body,
  Controller,
  Get,
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
import { ApiExceptionFilter } from '../http/api-exception.filter';
import {
  ApprovalIdPipe,
  ArgumentsHashPipe,
  IdempotencyKeyHeader,
  IdempotencyKeyPipe,
  WaitSecondsPipe,
} from './approval-request.pipes';
import { approvalView } from './approval.view';
import { ApprovalLifecycle } from './approval-lifecycle.usecase';
import { CreateApproval } from './create-approval.usecase';

/**
 * The approval API of docs/protocol.md: thin bindings of each route to its use case, every
 * parameter read by its pipe (approval-request.pipes.ts). Nest runs a route's pipes last
 * parameter first, so where two may refuse the one that must win is declared last: a wait
 * before the id, an id before the redeem body (A1, fuzz-checked).
 */
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
    @IdempotencyKeyHeader(IdempotencyKeyPipe) idempotencyKey: string,
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
    @Param('id', ApprovalIdPipe) id: string,
    @Query('wait', WaitSecondsPipe) waitS: number,
  ): Promise<Record<string, unknown>> {
    const record = await this.lifecycle.waitFor(req.client, id, waitS * 1_000);
    return approvalView(record);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(
    @Req() req: AuthenticatedRequest,
    @Param('id', ApprovalIdPipe) id: string,
  ): Promise<Record<string, unknown>> {
    return approvalView(await this.lifecycle.cancel(req.client, id));
  }

  @Post(':id/redeem')
  @HttpCode(200)
  async redeem(
    @Req() req: AuthenticatedRequest,
    @Body(ArgumentsHashPipe) argumentsHash: string,
    @Param('id', ApprovalIdPipe) id: string,
  ): Promise<Record<string, unknown>> {
    return approvalView(await this.lifecycle.redeem(req.client, id, argumentsHash));
  }
}
