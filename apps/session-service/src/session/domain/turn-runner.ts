import {
  argumentsHashOf,
  type JsonObject,
  LIMITS,
  type Person,
  type Principal,
  type Quorum,
} from '@tollgate/protocol';
import type { QuorumPolicy } from '../../tools/tool-policy';
import { quorumOf } from '@tollgate/session-read-model';
import { journaledOffer } from '../../tools/grant-offer';
import { PROMPT_TEXT_BUDGET, renderPromptText } from '../../prompt/prompt-text.renderer';
import {
  ownEntry,
  type ProviderMessage,
  redriveDecisions,
  type ToolCall,
} from '@tollgate/session-read-model';
import type { SessionDeps } from './session-deps';
import { grantReadFor, grantUseOf } from './grant-read';
import { performReadGrant } from '../read-grant';
import { parseArguments } from './tool-call-arguments';
import { MAX_MODEL_ROUNDS_PER_TURN } from './session-deps';
import { HistoryUnrestorable } from './provider-history';
import type { OutputDraft, SessionRecorder } from './session-recorder';
import { ToolArgumentError } from '../../tools/tool';
import { RESULT_UNDELIVERABLE, UNDELIVERABLE_OPTION_KEY } from './undeliverable-call';
import { awaitingSubAgents, sessionTools, startSubAgent } from './sub-agent.runner';
import { DELEGATE_TOOL } from './sub-agent';
import { deadlineResult, promptTimersAt } from './prompt-timer';
import { editableArguments } from './argument-edit.decider';

const RESULT_DENIED = 'denied';
const RESULT_REFUSED = 'refused by policy';
const RESULT_UNKNOWN = 'unknown tool';

/**
 * Drives a running turn: ask the model, run what may run, park what needs an approver, and
 * finish with the model's reply. `messages` is what the model sees first: by default the
 * session's history, or for a redrive the batch's context plus its results in batch order.
 * Everything decided so far is committed before each model call (the `model-calling`
 * checkpoint), so the wait holds nothing and a crash resumes the turn from the journal.
 */
export async function continueTurn(
  recorder: SessionRecorder,
  deps: SessionDeps,
  messages?: readonly ProviderMessage[],
): Promise<void> {
  let first = messages;
  for (let round = 0; round < MAX_MODEL_ROUNDS_PER_TURN; round += 1) {
    const turn = recorder.current.turn;
    if (turn.phase !== 'Running' && turn.phase !== 'Redriving') return;
    await recorder.checkpoint('model-calling');
    let seen: readonly ProviderMessage[];
    try {
      seen = first ?? (await recorder.history());
    } catch (error) {
      if (!(error instanceof HistoryUnrestorable)) throw error;
      const reason = `its history could not be restored (${error.message})`;
      recorder.record({ type: 'TurnFailed', reason }, [
        { type: 'TextOutput', text: boundedText(`The turn failed: ${reason}`), role: 'notice' },
      ]);
      return;
    }
    first = undefined;
    let reply;
    try {
      reply = await deps.model.complete({
        messages: seen,
        turnSeq: turn.turnSeq,
        tools: sessionTools(recorder, deps)
          .list()
          .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      });
    } catch (error) {
      // A model that errs or times out fails the turn; the user is told, nothing is left open.
      const reason = `the model did not answer: ${error instanceof Error ? error.message : String(error)}`;
      recorder.record({ type: 'TurnFailed', reason }, [
        { type: 'TextOutput', text: boundedText(`The turn failed: ${reason}`), role: 'notice' },
      ]);
      return;
    }
    if (reply.toolCalls.length === 0) {
      // A sub-agent's reply is its `delegate` result, which the parent's model answers with.
      recorder.record(
        { type: 'TurnCompleted', reply: reply.content },
        recorder.current.parent
          ? []
          : [{ type: 'TextOutput', text: boundedText(reply.content), role: 'assistant' }],
      );
      return;
    }
    const parked = await startBatch(recorder, deps, reply.content, reply.toolCalls);
    if (parked) return;
  }
  const reason = `the model kept calling tools after ${MAX_MODEL_ROUNDS_PER_TURN} rounds`;
  recorder.record({ type: 'TurnFailed', reason }, [
    { type: 'TextOutput', text: `The turn stopped: ${reason}.`, role: 'notice' },
  ]);
}

/** Runs the batch's ungated calls and requests the gated ones. True when the batch parked. */
async function startBatch(
  recorder: SessionRecorder,
  deps: SessionDeps,
  content: string,
  toolCalls: readonly ToolCall[],
): Promise<boolean> {
  const batchId = `batch_${recorder.nextSeq}`;
  recorder.record({ type: 'ToolBatchStarted', batchId, content, toolCalls });
  const gated: ToolCall[] = [];
  const tools = sessionTools(recorder, deps);
  for (const call of toolCalls) {
    const tool = tools.get(call.toolName);
    const entry = deps.policy.entryFor(call.toolName);
    if (!tool || !entry) {
      recordResult(recorder, call, 'unknown_tool', RESULT_UNKNOWN);
    } else if (entry.mode === 'deny') {
      recordResult(recorder, call, 'refused_by_policy', RESULT_REFUSED);
    } else if (entry.mode === 'auto') {
      await execute(recorder, deps, call);
    } else if (
      // G1: no one person's grant stands in for a quorum or a separate approver.
      entry.quorum === undefined &&
      (await coveredByGrant(recorder, deps, call))
    ) {
      await execute(recorder, deps, call);
    } else {
      gated.push(call);
    }
  }
  for (const call of gated) {
    const entry = deps.policy.entryFor(call.toolName);
    const tool = tools.get(call.toolName);
    if (!entry || !tool) continue;
    const seq = recorder.nextSeq;
    const user = lastUserMessage(recorder);
    const editable = editableArguments(
      entry.editable,
      parseArguments(call.arguments) as JsonObject | undefined,
    );
    const quorum = entry.quorum === undefined ? undefined : promptQuorum(entry.quorum, user);
    const request = recorder.output(seq, 0, {
      type: 'ToolInteractionRequest',
      callId: call.callId,
      batchId,
      toolName: call.toolName,
      displayText: promptText(recorder, call, content, user, entry.quorum),
      requester: user.sender,
      ...(entry.quorum?.approvers ? { approvers: [...entry.quorum.approvers] } : {}),
      ...(entry.quorum?.approverGroups ? { approverGroups: [...entry.quorum.approverGroups] } : {}),
      principal: user.principal,
      options: [...entry.options],
      // Every approver of a tally approves the same arguments (an edit is refused there).
      ...(editable && !quorum ? { editable } : {}),
      ...(quorum ? { quorum } : {}),
    });
    if (request.type !== 'ToolInteractionRequest') throw new Error('unreachable');
    const timers = promptTimersAt(entry.timers, request.occurredAt);
    recorder.record(
      {
        type: 'ToolApprovalRequested',
        batchId,
        callId: call.callId,
        toolName: call.toolName,
        displayText: request.displayText,
        requester: request.requester,
        principal: request.principal,
        options: request.options,
        request,
        ...(timers ? { timers } : {}),
        ...(entry.always && request.options.some((o) => o.key === 'approve_always')
          ? { grantOffer: journaledOffer(entry.always) }
          : {}),
      },
      [request],
    );
  }
  if (gated.length > 0) return true;
  if (!awaitingSubAgents(recorder)) return false;
  recorder.record({ type: 'SubAgentsAwaited', batchId });
  return true;
}

/**
 * G1: the tally a prompt with a quorum starts with. Only a person can be kept separate from
 * their own call: an automation's message has no one behind it.
 */
function promptQuorum(
  policy: QuorumPolicy,
  user: { sender: Person; principal: Principal },
): Quorum {
  const separateFrom =
    policy.separateApprover && user.principal === 'user' ? user.sender : undefined;
  return quorumOf({
    rule: {
      required: policy.required,
      ...(policy.approvers ? { approvers: policy.approvers } : {}),
      ...(policy.approverGroups ? { approverGroups: policy.approverGroups.map((g) => g.id) } : {}),
      ...(separateFrom ? { separateFrom } : {}),
    },
    approvals: [],
  });
}

/**
 * A4: the prompt shows the tool and the arguments the model gave, as they will run; the model's
 * own text of the batch only as "Agent says:". Arguments that are no JSON object are shown as
 * the text the model sent, which is what the tool would be refused with.
 */
function promptText(
  recorder: SessionRecorder,
  call: ToolCall,
  content: string,
  user: { sender: Person; principal: Principal },
  quorum: QuorumPolicy | undefined,
): string {
  const state = recorder.current;
  const parsed = parseArguments(call.arguments);
  const platform = state.conversation?.platform ?? 'discord';
  return renderPromptText({
    tool: call.toolName,
    arguments: parsed ?? { arguments: call.arguments },
    argumentsHash: argumentsHashOf(parsed ?? call.arguments),
    summary: content,
    agent: {
      name: state.parent ? `sub-agent ${state.parent.name}` : 'Tollgate',
      session: state.sessionId,
      ...(user.principal === 'user' ? { onBehalfOf: user.sender } : {}),
    },
    ...(quorum?.approverGroups ? { approverGroups: quorum.approverGroups } : {}),
    approvers:
      quorum !== undefined
        ? (quorum.approvers ?? 'any member')
        : user.principal === 'user'
          ? [user.sender]
          : 'any member',
    maxChars: PROMPT_TEXT_BUDGET[platform],
  });
}

/**
 * A covered call is journaled as such (ToolCallGranted), with the use it took of a limited
 * grant (G3). The grants are read on the decision's own connection (the ReadGrant effect).
 */
async function coveredByGrant(
  recorder: SessionRecorder,
  deps: SessionDeps,
  call: ToolCall,
): Promise<boolean> {
  const read = grantReadFor(recorder.current, lastUserMessage(recorder), call, recorder.clock);
  if (!read) return false;
  const covered = grantUseOf(read, await performReadGrant(read, deps.grants, recorder));
  if (!covered) return false;
  let use = covered.use;
  if (covered.claim) {
    const usesLeft = await recorder.claimGrantUse(covered.claim);
    if (usesLeft === undefined) return false;
    use = { ...use, usesLeft };
  }
  recorder.record({
    type: 'ToolCallGranted',
    callId: call.callId,
    toolName: call.toolName,
    grant: use,
  });
  return true;
}

/**
 * The parked batch is fully answered: approved calls run, denied ones get a denial, then
 * the model continues from the context persisted when the batch parked.
 */
export async function redrive(recorder: SessionRecorder, deps: SessionDeps): Promise<void> {
  const state = recorder.current;
  const batch = state.batch;
  const decisions = new Map(redriveDecisions(state.turn).map((d) => [d.callId, d]));
  const context = batch ? await contextOf(recorder, batch.seq) : undefined;
  if (!batch || !context) {
    return expireBatch(recorder, 'its context could not be restored');
  }
  const tools = sessionTools(recorder, deps);
  const gone = batch.toolCalls.filter(
    (call) =>
      decisions.get(call.callId)?.approved &&
      (!tools.get(call.toolName) || !deps.policy.entryFor(call.toolName)),
  );
  if (gone.length > 0) {
    return expireBatch(recorder, `${gone.map((c) => c.toolName).join(', ')} no longer exists`);
  }
  for (const call of batch.toolCalls) {
    if (ownEntry(recorder.current.batch?.results, call.callId)) continue;
    // Started already (auto, or before a restart): its sub-agent reports when done.
    if (ownEntry(recorder.current.subAgents, call.callId)) continue;
    const decision = decisions.get(call.callId);
    // G2: an edited approval runs with the arguments it was bound to, never the model's.
    if (decision?.approved)
      await execute(recorder, deps, { ...call, arguments: decision.arguments ?? call.arguments });
    else recordResult(recorder, call, 'denied', deniedResult(decision?.optionKey));
  }
  if (awaitingSubAgents(recorder)) {
    recorder.record({ type: 'SubAgentsAwaited', batchId: batch.batchId });
    return;
  }
  const results = recorder.current.batch?.results ?? {};
  const toolMessages = batch.toolCalls.map((call): ProviderMessage => ({
    role: 'tool',
    callId: call.callId,
    content: ownEntry(results, call.callId)?.result ?? RESULT_DENIED,
  }));
  await continueTurn(recorder, deps, [...context, ...toolMessages]);
}

/** The history up to the batch's assistant message, as the model saw it; undefined if lost. */
async function contextOf(
  recorder: SessionRecorder,
  batchSeq: number,
): Promise<ProviderMessage[] | undefined> {
  try {
    const context = await recorder.history(batchSeq);
    const last = context.at(-1);
    return last?.role === 'assistant' && last.toolCalls ? context : undefined;
  } catch (error) {
    if (error instanceof HistoryUnrestorable) return undefined;
    throw error;
  }
}

/** A call whose prompt could never be shown reads so in the reply, not as a denial. */
function deniedResult(optionKey: string | undefined): string {
  if (optionKey === UNDELIVERABLE_OPTION_KEY) return RESULT_UNDELIVERABLE;
  return deadlineResult(optionKey) ?? RESULT_DENIED;
}

/**
 * S5: the batch cannot be redriven (context gone, tool gone). Nothing runs; every call gets a
 * synthetic result, every prompt of the batch is expired, and the chat is told.
 */
function expireBatch(recorder: SessionRecorder, why: string): void {
  const state = recorder.current;
  const turn = state.turn;
  const approvalBatch = 'batch' in turn ? turn.batch : undefined;
  const batchId = state.batch?.batchId ?? approvalBatch?.batchId ?? 'unknown';
  const calls = state.batch?.toolCalls ?? [];
  const results = calls
    .filter((call) => !ownEntry(state.batch?.results, call.callId))
    .map((call) => ({ callId: call.callId, result: `not run: expired (${why})` }));
  recorder.record({ type: 'ToolBatchAbandoned', batchId, reason: 'expired', results }, [
    ...(approvalBatch?.gated ?? []).map((g): OutputDraft => ({
      type: 'ToolInteractionUpdate',
      callId: g.callId,
      status: 'Expired',
      reason: `expired: ${why}`,
    })),
    {
      type: 'TextOutput',
      role: 'notice',
      text: boundedText(`This request expired because ${why}; nothing was run.`),
    },
  ]);
}

/**
 * S9: the process died while a tool ran. A started call with no result may or may not have
 * done its work, so it is never run again: the batch is abandoned as interrupted, history is
 * healed with synthetic results, and the chat is told the action may not have completed.
 */
export function interruptBatch(recorder: SessionRecorder): void {
  const state = recorder.current;
  const batch = state.batch;
  const calls = batch?.toolCalls ?? [];
  const interrupted = calls.filter(
    (call) => batch?.started.includes(call.callId) && !ownEntry(batch.results, call.callId),
  );
  const results = calls
    .filter((call) => !ownEntry(batch?.results, call.callId))
    .map((call) => ({
      callId: call.callId,
      result: interrupted.includes(call)
        ? 'interrupted: the action may not have completed'
        : 'not run: interrupted by a restart',
    }));
  const names = interrupted.map((c) => c.toolName).join(', ') || 'the action';
  recorder.record(
    {
      type: 'ToolBatchAbandoned',
      batchId: batch?.batchId ?? 'unknown',
      reason: 'interrupted',
      results,
    },
    [
      {
        type: 'TextOutput',
        role: 'notice',
        text: boundedText(
          `The service restarted while ${names} ran; the action may not have completed. It was not run again.`,
        ),
      },
    ],
  );
}

/**
 * A decision failed after a checkpoint committed (its last events could not be saved), so the
 * journal holds a turn still Running or Redriving that nothing will finish: no redelivery
 * runs it (the command ledger already holds the id) and every later message would be an
 * illegal transition. Ends it as an interrupted batch would: a started call may have done its
 * work and is never run again, the rest are not run, and the chat is told. False when the
 * turn is not in flight.
 */
export function failTurnInFlight(recorder: SessionRecorder): boolean {
  const { turn, batch } = recorder.current;
  if (turn.phase !== 'Running' && turn.phase !== 'Redriving') return false;
  const started = (batch?.toolCalls ?? []).filter(
    (call) => batch?.started.includes(call.callId) && !ownEntry(batch.results, call.callId),
  );
  const names = started.map((c) => c.toolName).join(', ');
  const notice: OutputDraft = {
    type: 'TextOutput',
    role: 'notice',
    text: boundedText(
      names
        ? `The turn failed: its result could not be saved, and ${names} may have completed. Nothing else was run.`
        : 'The turn failed: its result could not be saved. Nothing else was run.',
    ),
  };
  if (!batch) {
    recorder.record({ type: 'TurnFailed', reason: 'the decision could not be saved' }, [notice]);
    return true;
  }
  const results = batch.toolCalls
    .filter((call) => !ownEntry(batch.results, call.callId))
    .map((call) => ({
      callId: call.callId,
      result: started.includes(call)
        ? 'interrupted: the action may not have completed'
        : 'not run: the turn failed',
    }));
  recorder.record(
    { type: 'ToolBatchAbandoned', batchId: batch.batchId, reason: 'interrupted', results },
    [notice],
  );
  return true;
}

async function execute(
  recorder: SessionRecorder,
  deps: SessionDeps,
  call: ToolCall,
): Promise<void> {
  const tool = sessionTools(recorder, deps).get(call.toolName);
  if (!tool) return recordResult(recorder, call, 'unknown_tool', RESULT_UNKNOWN);
  if (call.toolName === DELEGATE_TOOL) {
    const refused = startSubAgent(recorder, call, parseArguments(call.arguments));
    if (refused !== undefined) recordResult(recorder, call, 'error', `error: ${refused}`);
    return;
  }
  recorder.record({ type: 'ToolExecutionStarted', callId: call.callId, toolName: call.toolName });
  await recorder.checkpoint('tool-starting');
  const args = parseArguments(call.arguments);
  try {
    if (!args) throw new ToolArgumentError('arguments are not a JSON object');
    const outcome = await tool.run(args, { noteCount: recorder.current.noteCount });
    recorder.record({
      type: 'ToolCallRecorded',
      callId: call.callId,
      toolName: call.toolName,
      outcome: 'ok',
      result: outcome.result,
      ...(outcome.note === undefined ? {} : { note: outcome.note }),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    recordResult(recorder, call, 'error', `error: ${message}`);
  }
}

export function recordResult(
  recorder: SessionRecorder,
  call: ToolCall,
  outcome: 'denied' | 'refused_by_policy' | 'unknown_tool' | 'error',
  result: string,
): void {
  recorder.record({
    type: 'ToolCallRecorded',
    callId: call.callId,
    toolName: call.toolName,
    outcome,
    result,
  });
}

/**
 * A reply may be longer than a TextOutput may carry (`You said: ` + a 40 000-character
 * message); every binding would dead-letter it. The journal keeps the whole reply.
 */
function boundedText(text: string): string {
  if (text.length <= LIMITS.text) return text;
  let end = LIMITS.text - 1;
  // Never leave half of a surrogate pair before the ellipsis.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

function turnSeqOf(recorder: SessionRecorder): number {
  const turn = recorder.current.turn;
  return turn.phase === 'NoActive' ? 0 : turn.turnSeq;
}

export function lastUserMessage(recorder: SessionRecorder) {
  const turnSeq = turnSeqOf(recorder);
  const message = recorder.current.turnMessage;
  if (!message || message.seq !== turnSeq) {
    throw new Error(`session ${recorder.current.sessionId} has no message for turn ${turnSeq}`);
  }
  return message;
}
