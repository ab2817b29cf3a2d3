import type {
  Option,
  Quorum,
  ToolInteractionRequest,
  ToolInteractionResponse,
} from '@tollgate/protocol';
import {
  countedIn,
  decideTally,
  type TallyEvent,
  tallyOfRequest,
} from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { answerVia } from './answer-via';
import { refuse, type RejectionNotices } from './rejection';

/**
 * G1: an answer to one of the turn's prompts that has a quorum, journaled as the tally decider
 * says. True when it resolved the call (quorum reached or vetoed), so the batch may go on.
 */
export function answerWithTally(
  recorder: SessionRecorder,
  command: ToolInteractionResponse,
  option: Option,
  request: ToolInteractionRequest & { readonly quorum: Quorum },
  notices: RejectionNotices,
): boolean {
  const events = decideTally(tallyOfRequest(request), {
    by: command.sender,
    approve: option.key !== 'deny',
    at: recorder.clock,
    ...(command.memberOf === undefined ? {} : { memberOf: command.memberOf }),
  });
  const [first] = events;
  if (first === undefined) throw new Error('the tally decided nothing');
  if (first.type === 'AnswerRefused') {
    refuse(recorder, command, first.reason, notices);
    return false;
  }
  if (first.type === 'Vetoed') {
    resolve(recorder, command, option, first.approvals, false);
    return true;
  }
  const reached = events.find(
    (e): e is Extract<TallyEvent, { type: 'QuorumReached' }> => e.type === 'QuorumReached',
  );
  if (first.type !== 'ApprovalCounted') throw new Error(`unexpected tally event ${first.type}`);
  const { approval } = first;
  recorder.record(
    {
      type: 'ToolApprovalCounted',
      commandId: command.id,
      callId: command.callId,
      by: approval.by,
      at: approval.at,
      ...answerVia(command),
    },
    // The approval that completes the quorum is shown by the resolution that follows it.
    reached
      ? []
      : [
          {
            type: 'ToolInteractionUpdate',
            callId: command.callId,
            status: 'Tallied',
            request: countedIn(request, approval),
          },
        ],
  );
  if (!reached) return false;
  resolve(recorder, command, option, reached.approvals, true);
  return true;
}

function resolve(
  recorder: SessionRecorder,
  command: ToolInteractionResponse,
  option: Option,
  approvals: NonNullable<Extract<TallyEvent, { type: 'Vetoed' }>['approvals']>,
  approved: boolean,
): void {
  recorder.record(
    {
      type: 'ToolApprovalResolved',
      commandId: command.id,
      callId: command.callId,
      optionKey: option.key,
      label: option.label,
      approved,
      resolvedBy: command.sender,
      approvals,
      ...answerVia(command),
    },
    [
      {
        type: 'ToolInteractionResolved',
        callId: command.callId,
        optionKey: option.key,
        label: option.label,
        resolvedBy: command.sender,
        approvals: [...approvals],
      },
    ],
  );
}
