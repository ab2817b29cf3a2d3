import type { ToolInteractionShown } from '@tollgate/protocol';
import { hasOwnEntry } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';

/**
 * G4: a binding posted this call's prompt at these platform ids (`ToolInteractionShown`):
 * journaled as `PromptShown`, which the audit trail records as `prompt_shown`. Only for a
 * call this session asked about — pending, answered, or of an earlier batch or API approval
 * (the report may arrive after a fast answer) — so a stray report cannot put a prompt the
 * session never asked for into the trail. No output, no change to the turn. A repeat (the
 * same message reported again) never gets here: its command id is in the ledger.
 */
export function decidePromptShown(recorder: SessionRecorder, command: ToolInteractionShown): void {
  const state = recorder.current;
  const known =
    hasOwnEntry(state.requested, command.callId) ||
    hasOwnEntry(state.settledCalls, command.callId) ||
    hasOwnEntry(state.apiApprovals, command.callId);
  if (state.version === 0 || !known) return;
  recorder.record(
    {
      type: 'PromptShown',
      commandId: command.id,
      callId: command.callId,
      platform: command.conversation.platform,
      messageRef: command.messageRef,
      shown: command.shown,
    },
    [],
  );
}
