import type { PipeTransform } from '@nestjs/common';
import { ApiError } from '../http/api-error';
import { type HookAsk, readHookBody } from './hook-body.rules';

/**
 * A runtime's hook input, read at the boundary into the ask it stands for; anything else is
 * `400 invalid_hook_body` (not hook output, so the runtime falls back to its own prompt).
 * Each route names the hook events its runtime may send.
 */
export class HookBodyPipe implements PipeTransform<unknown, HookAsk> {
  constructor(private readonly events: readonly HookAsk['event'][]) {}

  transform(body: unknown): HookAsk {
    const read = readHookBody(body, this.events);
    if (!read.ok) throw new ApiError(400, 'invalid_hook_body', read.message);
    return read.ask;
  }
}
