import { isParked, ownEntry, pendingCalls } from '@tollgate/session-read-model';
import type { OutputDraft, SessionRecorder } from './session-recorder';
import type { SubAgentAbandon, SubAgentResult, SubAgentTask } from './sub-agent';
import { DELEGATE_TOOL, subAgentAbandonId } from './sub-agent';

/** A child session's first decision: the task is its message, asked by the parent's requester. */
export function decideSubAgentTask(recorder: SessionRecorder, command: SubAgentTask): void {
  // Its id is the parent's call's: a second task for it is the same child, already started.
  if (recorder.current.version > 0) return;
  recorder.record({
    type: 'SessionStarted',
    conversation: command.conversation,
    parent: command.parent,
    ...(command.tools === undefined ? {} : { tools: command.tools }),
  });
  recorder.record({
    type: 'UserMessageReceived',
    commandId: command.id,
    sender: command.requester,
    text: command.task,
    principal: command.principal,
  });
}

/**
 * A child reported: its reply (or why it could not finish) is the `delegate` call's result,
 * which the parent's model sees; the last one resumes the parent's batch. A report for a call
 * the parent no longer waits on (its batch abandoned) changes nothing.
 */
export function decideSubAgentResult(recorder: SessionRecorder, command: SubAgentResult): void {
  const state = recorder.current;
  const running = ownEntry(state.subAgents, command.callId);
  if (!running || running.childSessionId !== command.childSessionId) return;
  if (ownEntry(state.batch?.results, command.callId)) return;
  recorder.record({
    type: 'ToolCallRecorded',
    callId: command.callId,
    toolName: DELEGATE_TOOL,
    outcome: command.outcome === 'ok' ? 'ok' : 'error',
    result:
      command.outcome === 'ok'
        ? command.result
        : `error: sub-agent ${running.name} could not finish: ${command.result}`,
  });
  recorder.record({
    type: 'SubAgentFinished',
    callId: command.callId,
    childSessionId: command.childSessionId,
    outcome: command.outcome,
  });
}

/**
 * The parent's batch was abandoned: so is the child's, with its prompts, so nothing the
 * child asks can still be answered. A child busy with its model or a tool has its commands
 * queued behind that work and sees this once it parks or ends.
 */
export function decideSubAgentAbandon(recorder: SessionRecorder, command: SubAgentAbandon): void {
  const state = recorder.current;
  if (!isParked(state.turn)) return;
  const batch = state.batch;
  if (!batch) throw new Error(`session ${state.sessionId} is parked without a batch`);
  const results = batch.toolCalls
    .filter((call) => !ownEntry(batch.results, call.callId))
    .map((call) => ({ callId: call.callId, result: `not run: ${command.reason}` }));
  recorder.record(
    { type: 'ToolBatchAbandoned', batchId: batch.batchId, reason: 'superseded', results },
    pendingCalls(state.turn).map((p): OutputDraft => ({
      type: 'ToolInteractionUpdate',
      callId: p.callId,
      status: 'Abandoned',
      reason: command.reason,
    })),
  );
}

/** The parent side of a supersede: every running child is told to abandon its batch too. */
export function abandonSubAgents(recorder: SessionRecorder, reason: string): void {
  const { subAgents } = recorder.current;
  const seq = recorder.current.version;
  for (const { childSessionId } of Object.values(subAgents)) {
    recorder.dispatch({
      type: 'SubAgentAbandon',
      id: subAgentAbandonId(childSessionId, seq),
      sessionId: childSessionId,
      reason,
    });
  }
}
