import {
  Body,
  Controller,
  HttpCode,
  Post,
  Query,
  Req,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard';
import { ApiError } from '../http/api-error';
import { ApiExceptionFilter } from '../http/api-exception.filter';
import { permissionRequestOutput, preToolUseOutput } from './hook-answer';
import { readHookBody } from './hook-body.rules';
import { HoldHook, type HookNarrowing } from './hold-hook.usecase';

/**
 * The runtime hooks (docs/protocol.md, the approval API): Claude Code's `http` hook and Codex's
 * command hook (through curl) post their hook input here and get their own output format
 * back. Neither answer ever carries `updatedInput`: what runs is what was shown.
 */
@Controller('v1/hooks')
@UseGuards(ApiKeyGuard)
@UseFilters(ApiExceptionFilter)
export class HooksController {
  constructor(private readonly holdHook: HoldHook) {}

  @Post('claude-code')
  @HttpCode(200)
  async claudeCode(
    @Req() req: AuthenticatedRequest,
    @Body() body: unknown,
    @Query() query: HookNarrowing,
  ): Promise<Record<string, unknown>> {
    const read = readHookBody(body, ['PermissionRequest', 'PreToolUse']);
    if (!read.ok) throw new ApiError(400, 'invalid_hook_body', read.message);
    const verdict = await this.holdHook.hold(req.client, 'claude-code', read.ask, query);
    return read.ask.event === 'PreToolUse'
      ? preToolUseOutput(verdict)
      : permissionRequestOutput(verdict);
  }

  @Post('codex')
  @HttpCode(200)
  async codex(
    @Req() req: AuthenticatedRequest,
    @Body() body: unknown,
    @Query() query: HookNarrowing,
  ): Promise<Record<string, unknown>> {
    const read = readHookBody(body, ['PermissionRequest']);
    if (!read.ok) throw new ApiError(400, 'invalid_hook_body', read.message);
    const verdict = await this.holdHook.hold(req.client, 'codex', read.ask, query);
    return permissionRequestOutput(verdict, { updatedInput: false });
  }
}
