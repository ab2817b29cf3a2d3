import { deriveSubAgentSessionId } from '@tollgate/protocol';
import type { ToolRegistry } from '../../tools/tool-registry';
import type { SessionDeps } from './session-deps';
import { ownEntry, type ToolCall } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { DELEGATE_TOOL, parseDelegateArguments, subAgentTaskId } from './sub-agent';
import { lastUserMessage } from './turn-records';

/**
 * The tools this session may use: a sub-agent only those `delegate` allowed it, and never
 * `delegate` itself (one level of sub-agents: a child's prompts name their parent call in
 * the conversation's own session, which a grandchild could not).
 */
export function sessionTools(
  recorder: SessionRecorder,
  deps: Pick<SessionDeps, 'tools'>,
): ToolRegistry {
  const { parent, toolSubset } = recorder.current;
  if (!parent) return deps.tools;
  const allowed = (name: string) =>
    name !== DELEGATE_TOOL && (toolSubset === undefined || toolSubset.includes(name));
  return {
    get: (name) => (allowed(name) ? deps.tools.get(name) : undefined),
    list: () => deps.tools.list().filter((t) => allowed(t.name)),
  };
}

/**
 * Runs a `delegate` call: journals the child it starts and hands the child its task, in the
 * same transaction, so neither can exist without the other. Returns why the call is refused
 * (its result then says so) or undefined once the child is under way.
 */
export function startSubAgent(
  recorder: SessionRecorder,
  call: ToolCall,
  args: Record<string, unknown> | undefined,
): string | undefined {
  const state = recorder.current;
  if (state.parent) return 'a sub-agent cannot delegate';
  if (!args) return 'arguments are not a JSON object';
  const parsed = parseDelegateArguments(args);
  if ('refused' in parsed) return parsed.refused;
  const conversation = state.conversation;
  if (!conversation) return 'the session has no conversation';
  const childSessionId = deriveSubAgentSessionId(state.sessionId, call.callId);
  const requester = lastUserMessage(recorder);
  recorder.record({
    type: 'SubAgentStarted',
    callId: call.callId,
    childSessionId,
    name: parsed.name,
  });
  recorder.dispatch({
    type: 'SubAgentTask',
    id: subAgentTaskId(childSessionId),
    sessionId: childSessionId,
    conversation,
    parent: { sessionId: state.sessionId, callId: call.callId, name: parsed.name },
    requester: requester.sender,
    principal: requester.principal,
    task: parsed.task,
    ...(parsed.tools === undefined ? {} : { tools: parsed.tools }),
  });
  return undefined;
}

/** The batch's unfinished calls are all delegated ones still at work (and there is one). */
export function awaitingSubAgents(recorder: SessionRecorder): boolean {
  const { batch, subAgents } = recorder.current;
  if (!batch) return false;
  const unfinished = batch.toolCalls.filter((call) => !ownEntry(batch.results, call.callId));
  return unfinished.length > 0 && unfinished.every((call) => ownEntry(subAgents, call.callId));
}
