import type { ToolCall } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { awaitingSubAgents, sessionTools } from './sub-agent.runner';
import { grantReadFor, grantUseOf } from './grant-read';
import { requestApprovals } from './gated-requests';
import type { BatchCursor, TurnConfig, TurnEffect, TurnInput } from './turn-effects';
import { nextModelRound } from './model-round';
import { execute } from './tool-run';
import { decideRedriveStep } from './redrive.decider';
import { lastUserMessage, recordResult, RESULT_REFUSED, RESULT_UNKNOWN } from './turn-records';

type Cursor = Extract<BatchCursor, { kind: 'batch' }>;

/** The model asked for tools: the batch is journaled, then its calls are examined in order. */
export function startBatch(
  recorder: SessionRecorder,
  config: TurnConfig,
  round: number,
  content: string,
  toolCalls: readonly ToolCall[],
): TurnEffect | undefined {
  const batchId = `batch_${recorder.nextSeq}`;
  recorder.record({ type: 'ToolBatchStarted', batchId, content, toolCalls });
  return examine(recorder, config, { kind: 'batch', round, content, next: 0, gated: [] });
}

/** The result of a grant read, a grant use or a tool run, and on with the batch. */
export function decideBatchStep(
  recorder: SessionRecorder,
  config: TurnConfig,
  input: Extract<TurnInput, { type: 'GrantRead' | 'GrantUseTaken' | 'ToolRan' | 'ToolFailed' }>,
): TurnEffect | undefined {
  switch (input.type) {
    case 'GrantRead': {
      const { call, cursor } = input.effect;
      const covered = grantUseOf(input.effect, input.found);
      if (!covered) return examine(recorder, config, gate(cursor, call));
      // G3: a limited grant covers only once its use is taken, with the call's events.
      if (covered.claim) {
        return { type: 'TakeGrantUse', claim: covered.claim, use: covered.use, call, cursor };
      }
      recorder.record({
        type: 'ToolCallGranted',
        callId: call.callId,
        toolName: call.toolName,
        grant: covered.use,
      });
      return executeThen(recorder, config, call, { ...cursor, next: cursor.next + 1 });
    }
    case 'GrantUseTaken': {
      const { call, cursor, use } = input.effect;
      if (input.usesLeft === undefined) return examine(recorder, config, gate(cursor, call));
      recorder.record({
        type: 'ToolCallGranted',
        callId: call.callId,
        toolName: call.toolName,
        grant: { ...use, usesLeft: input.usesLeft },
      });
      return executeThen(recorder, config, call, { ...cursor, next: cursor.next + 1 });
    }
    case 'ToolRan': {
      const { call } = input.effect;
      const { outcome } = input;
      recorder.record({
        type: 'ToolCallRecorded',
        callId: call.callId,
        toolName: call.toolName,
        outcome: 'ok',
        result: outcome.result,
        ...(outcome.note === undefined ? {} : { note: outcome.note }),
      });
      return resume(recorder, config, input.effect.cursor);
    }
    case 'ToolFailed':
      recordResult(recorder, input.effect.call, 'error', `error: ${input.message}`);
      return resume(recorder, config, input.effect.cursor);
  }
}

function executeThen(
  recorder: SessionRecorder,
  config: TurnConfig,
  call: ToolCall,
  cursor: Cursor,
): TurnEffect | undefined {
  return execute(recorder, config, call, cursor) ?? examine(recorder, config, cursor);
}

function resume(
  recorder: SessionRecorder,
  config: TurnConfig,
  cursor: BatchCursor,
): TurnEffect | undefined {
  return cursor.kind === 'batch'
    ? examine(recorder, config, cursor)
    : decideRedriveStep(recorder, config, cursor.context);
}

function gate(cursor: Cursor, call: ToolCall): Cursor {
  return { ...cursor, next: cursor.next + 1, gated: [...cursor.gated, call.callId] };
}

/**
 * Goes through the batch's calls from the cursor on: an unknown tool or a denied one gets its
 * result, an auto one runs, one asking for approval runs when its requester's grant covers
 * it (G1: no one person's grant stands in for a quorum) and is kept for an approver
 * otherwise. Then the kept calls are requested and the batch parks, or it waits on its
 * sub-agents, or the model is asked again.
 */
function examine(
  recorder: SessionRecorder,
  config: TurnConfig,
  cursor: Cursor,
): TurnEffect | undefined {
  const batch = recorder.current.batch;
  if (!batch) throw new Error(`session ${recorder.current.sessionId} has no batch to examine`);
  const tools = sessionTools(recorder, config);
  const kept = [...cursor.gated];
  for (let next = cursor.next; next < batch.toolCalls.length; next += 1) {
    const call = batch.toolCalls[next];
    const at: Cursor = { ...cursor, next, gated: [...kept] };
    const entry = config.policy.entryFor(call.toolName);
    if (!tools.get(call.toolName) || !entry) {
      recordResult(recorder, call, 'unknown_tool', RESULT_UNKNOWN);
    } else if (entry.mode === 'deny') {
      recordResult(recorder, call, 'refused_by_policy', RESULT_REFUSED);
    } else if (entry.mode === 'auto') {
      const run = execute(recorder, config, call, { ...at, next: next + 1 });
      if (run) return run;
    } else {
      const read =
        entry.quorum === undefined
          ? grantReadFor(recorder.current, lastUserMessage(recorder), call, recorder.clock)
          : undefined;
      if (read) return { ...read, cursor: at };
      kept.push(call.callId);
    }
  }
  const gated = batch.toolCalls.filter((call) => kept.includes(call.callId));
  requestApprovals(recorder, config, batch.batchId, cursor.content, gated);
  if (gated.length > 0) return undefined;
  if (awaitingSubAgents(recorder)) {
    recorder.record({ type: 'SubAgentsAwaited', batchId: batch.batchId });
    return undefined;
  }
  return nextModelRound(recorder, config, cursor.round + 1);
}
