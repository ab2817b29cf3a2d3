import type { RejectionReason, ToolInteractionResponse } from '@tollgate/protocol';
import type { OutputDraft, RecordOptions, SessionRecorder } from './session-recorder';
import { answerVia } from './answer-via';

/**
 * How a session turns down a click, shared by the turn's prompts and the approval API's: the
 * two differ only in the wording of their notices (who may answer, what a stale click left
 * undone) and in where the notices go.
 */
export type RejectionNotices = Readonly<Record<RejectionReason, string>>;

/** Takes the buttons off a prompt that can no longer be answered. */
export function expiredUpdate(callId: string): OutputDraft {
  return {
    type: 'ToolInteractionUpdate',
    callId,
    status: 'Expired',
    reason: 'this request has expired',
  };
}

export function rejection(
  command: ToolInteractionResponse,
  reason: RejectionReason,
  notices: RejectionNotices,
): OutputDraft {
  return {
    type: 'ToolInteractionRejected',
    callId: command.callId,
    sender: command.sender,
    reason,
    text: notices[reason],
  };
}

/** Journals the refusal, so a replayed click gets the same answer, with its notice. */
export function refuse(
  recorder: SessionRecorder,
  command: ToolInteractionResponse,
  reason: RejectionReason,
  notices: RejectionNotices,
  extra: readonly OutputDraft[] = [],
  options: RecordOptions = {},
): void {
  recorder.record(
    {
      type: 'ToolApprovalRefused',
      commandId: command.id,
      callId: command.callId,
      optionKey: command.optionKey,
      sender: command.sender,
      reason,
      ...answerVia(command),
    },
    [rejection(command, reason, notices), ...extra],
    options,
  );
}

/**
 * G2: an edit outside what the prompt allows. The approver alone learns which argument and why;
 * the prompt stays pending and answerable, and nothing runs.
 */
export function refuseEdit(
  recorder: SessionRecorder,
  command: ToolInteractionResponse,
  refusal: { readonly code: string; readonly argument?: string; readonly text: string },
  options: RecordOptions = {},
): void {
  recorder.record(
    {
      type: 'ToolApprovalRefused',
      commandId: command.id,
      callId: command.callId,
      optionKey: command.optionKey,
      sender: command.sender,
      reason: 'edit_refused',
      ...answerVia(command),
      detail: {
        code: refusal.code,
        ...(refusal.argument === undefined ? {} : { argument: refusal.argument }),
      },
    },
    [
      {
        type: 'ToolInteractionRejected',
        callId: command.callId,
        sender: command.sender,
        reason: 'edit_refused',
        text: refusal.text,
      },
    ],
    options,
  );
}
