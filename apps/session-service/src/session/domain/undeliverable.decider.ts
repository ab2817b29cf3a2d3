import type { ToolInteractionUndeliverable } from '@tollgate/protocol';
import { ownEntry, pendingFor } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { RESULT_UNDELIVERABLE, UNDELIVERABLE_OPTION_KEY } from './undeliverable-call';

/** Who "resolved" a call nobody could see: the service itself, named in the journal. */
export const TOLLGATE = { id: 'tollgate', displayName: 'Tollgate' } as const;

/**
 * A binding could never show this call's prompt (docs/protocol.md §4, `ToolInteractionUndeliverable`):
 * the call is expired and counted as not approved, so the batch goes on instead of waiting for
 * an answer that cannot come, and the requester is told in text. Journaled as a resolution by
 * Tollgate with {@link UNDELIVERABLE_OPTION_KEY}, so the approval turn, recovery and the
 * pending-approvals projection treat it exactly like any other answer. A call that is no
 * longer pending (answered, superseded, a repeat) changes nothing.
 */
export function decideUndeliverable(
  recorder: SessionRecorder,
  command: ToolInteractionUndeliverable,
): void {
  const state = recorder.current;
  const call = ownEntry(state.requested, command.callId);
  if (state.version === 0 || !call || !pendingFor(state.turn, command.callId)) return;
  const { toolName } = call.request;
  recorder.record(
    {
      type: 'ToolApprovalResolved',
      commandId: command.id,
      callId: command.callId,
      optionKey: UNDELIVERABLE_OPTION_KEY,
      label: RESULT_UNDELIVERABLE,
      approved: false,
      resolvedBy: TOLLGATE,
    },
    [
      {
        type: 'ToolInteractionUpdate',
        callId: command.callId,
        status: 'Expired',
        reason: `undeliverable: ${command.reason}`,
      },
      {
        type: 'TextOutput',
        role: 'notice',
        text: `Could not show the approval prompt for ${toolName}: ${command.reason}`,
      },
    ],
  );
}
