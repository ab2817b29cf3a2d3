import type { Output } from '@tollgate/protocol';
import type { CallPriority } from './rate-limit-pacer';

/**
 * New prompts, resolutions, notices and texts are urgent; a refresh after a restart only
 * says "still valid" again, so it goes when the platform has room (issue 12, P5).
 */
export function priorityOf(output: Output): CallPriority {
  return output.type === 'ToolInteractionUpdate' && output.status === 'RefreshedAfterRestart'
    ? 'refresh'
    : 'urgent';
}
