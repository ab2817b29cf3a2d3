import { ownEntry, type ProviderMessage, redriveDecisions } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { awaitingSubAgents, sessionTools } from './sub-agent.runner';
import type { TurnConfig, TurnEffect } from './turn-effects';
import { execute } from './tool-run';
import { nextModelRound } from './model-round';
import { deniedResult, expireBatch } from './turn-endings';
import { recordResult, RESULT_DENIED } from './turn-records';

/**
 * The parked batch is fully answered and its context (the history up to the batch's assistant
 * message, as the model saw it) was read: unless the context is lost or an approved tool no
 * longer exists (S5: the batch expires), the approved calls run and denied ones get a denial.
 */
export function redriveContextRead(
  recorder: SessionRecorder,
  config: TurnConfig,
  context: readonly ProviderMessage[],
): TurnEffect | undefined {
  const batch = recorder.current.batch;
  const last = context.at(-1);
  if (!batch || last?.role !== 'assistant' || !last.toolCalls) {
    expireBatch(recorder, 'its context could not be restored');
    return undefined;
  }
  const decisions = new Map(redriveDecisions(recorder.current.turn).map((d) => [d.callId, d]));
  const tools = sessionTools(recorder, config);
  const gone = batch.toolCalls.filter(
    (call) =>
      decisions.get(call.callId)?.approved &&
      (!tools.get(call.toolName) || !config.policy.entryFor(call.toolName)),
  );
  if (gone.length > 0) {
    expireBatch(recorder, `${gone.map((c) => c.toolName).join(', ')} no longer exists`);
    return undefined;
  }
  return decideRedriveStep(recorder, config, context);
}

/**
 * Runs what is left of the answered batch, one call at a time; once every call has its result
 * the model continues from the context with every result in batch order.
 */
export function decideRedriveStep(
  recorder: SessionRecorder,
  config: TurnConfig,
  context: readonly ProviderMessage[],
): TurnEffect | undefined {
  const batch = recorder.current.batch;
  if (!batch) return undefined;
  const decisions = new Map(redriveDecisions(recorder.current.turn).map((d) => [d.callId, d]));
  for (const call of batch.toolCalls) {
    if (ownEntry(recorder.current.batch?.results, call.callId)) continue;
    // Started already (auto, or before a restart): its sub-agent reports when done.
    if (ownEntry(recorder.current.subAgents, call.callId)) continue;
    const decision = decisions.get(call.callId);
    if (decision?.approved) {
      // G2: an edited approval runs with the arguments it was bound to, never the model's.
      const approved = { ...call, arguments: decision.arguments ?? call.arguments };
      const run = execute(recorder, config, approved, { kind: 'redrive', context });
      if (run) return run;
    } else {
      recordResult(recorder, call, 'denied', deniedResult(decision?.optionKey));
    }
  }
  if (awaitingSubAgents(recorder)) {
    recorder.record({ type: 'SubAgentsAwaited', batchId: batch.batchId });
    return undefined;
  }
  const results = recorder.current.batch?.results ?? {};
  const toolMessages = batch.toolCalls.map((call): ProviderMessage => ({
    role: 'tool',
    callId: call.callId,
    content: ownEntry(results, call.callId)?.result ?? RESULT_DENIED,
  }));
  return nextModelRound(recorder, config, 0, [...context, ...toolMessages]);
}
