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
import { ApiExceptionFilter } from '../http/api-exception.filter';
import { permissionRequestOutput, preToolUseOutput } from './hook-answer';
import { HookBodyPipe } from './hook-body.pipe';
import type { HookAsk } from './hook-body.rules';
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
    @Body(new HookBodyPipe(['PermissionRequest', 'PreToolUse'])) ask: HookAsk,
    @Query() query: HookNarrowing,
  ): Promise<Record<string, unknown>> {
    const verdict = await this.holdHook.hold(req.client, 'claude-code', ask, query);
    return ask.event === 'PreToolUse'
      ? preToolUseOutput(verdict)
      : permissionRequestOutput(verdict);
  }

  @Post('codex')
  @HttpCode(200)
  async codex(
    @Req() req: AuthenticatedRequest,
    @Body(new HookBodyPipe(['PermissionRequest'])) ask: HookAsk,
    @Query() query: HookNarrowing,
  ): Promise<Record<string, unknown>> {
    const verdict = await this.holdHook.hold(req.client, 'codex', ask, query);
    return permissionRequestOutput(verdict, { updatedInput: false });
  }
}
