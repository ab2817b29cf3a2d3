import type { ToolCall } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { sessionTools, startSubAgent } from './sub-agent.runner';
import { DELEGATE_TOOL } from './sub-agent';
import type { BatchCursor, TurnConfig, TurnEffect } from './turn-effects';
import { recordResult, RESULT_UNKNOWN } from './turn-records';
import { parseArguments } from './tool-call-arguments';

/**
 * A call that may run: a `delegate` starts its sub-agent at once; any other tool is journaled
 * as started (ToolExecutionStarted, committed before it runs: after a crash a started call
 * with no result is known to be interrupted and never runs again) and run by the shell.
 * Undefined when nothing is left to run for it.
 */
export function execute(
  recorder: SessionRecorder,
  config: TurnConfig,
  call: ToolCall,
  cursor: BatchCursor,
): TurnEffect | undefined {
  const tool = sessionTools(recorder, config).get(call.toolName);
  if (!tool) {
    recordResult(recorder, call, 'unknown_tool', RESULT_UNKNOWN);
    return undefined;
  }
  if (call.toolName === DELEGATE_TOOL) {
    const refused = startSubAgent(recorder, call, parseArguments(call.arguments));
    if (refused !== undefined) recordResult(recorder, call, 'error', `error: ${refused}`);
    return undefined;
  }
  recorder.record({ type: 'ToolExecutionStarted', callId: call.callId, toolName: call.toolName });
  return {
    type: 'RunTool',
    commitFirst: 'tool-starting',
    call,
    arguments: parseArguments(call.arguments),
    noteCount: recorder.current.noteCount,
    cursor,
  };
}
