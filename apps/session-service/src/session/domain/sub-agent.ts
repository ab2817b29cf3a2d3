import type { Command, Conversation, Person, Principal } from '@tollgate/protocol';
import type { SubAgentParent } from '@tollgate/session-read-model';

/**
 * Sub-agents (S19–S21): the built-in tool `delegate` starts a child session with its own
 * journal; its prompts are shown in the parent's conversation and its final reply is the
 * `delegate` call's result. Parent and child talk only through these commands, written to
 * the other session's inbox in the same transaction as the event that causes them, so the
 * link is as durable as the journal and each is decided exactly once (the command ledger).
 * They never travel on NATS: no binding can send one.
 */

export const DELEGATE_TOOL = 'delegate';

export type { SubAgentParent };

/** Starts the child: its task is its first user message, asked by the parent's requester. */
export interface SubAgentTask {
  readonly type: 'SubAgentTask';
  readonly id: string;
  readonly sessionId: string;
  readonly conversation: Conversation;
  readonly parent: SubAgentParent;
  readonly requester: Person;
  readonly principal: Principal;
  readonly task: string;
  /** The tools the child may use; absent: every tool but `delegate`. */
  readonly tools?: readonly string[];
}

/** The child's turn ended: its reply, or why it could not finish. */
export interface SubAgentResult {
  readonly type: 'SubAgentResult';
  readonly id: string;
  readonly sessionId: string;
  readonly callId: string;
  readonly childSessionId: string;
  readonly outcome: 'ok' | 'failed';
  readonly result: string;
}

/** The parent's batch was abandoned (a newer message): the child's open prompts go too. */
export interface SubAgentAbandon {
  readonly type: 'SubAgentAbandon';
  readonly id: string;
  readonly sessionId: string;
  readonly reason: string;
}

export type SubAgentCommand = SubAgentTask | SubAgentResult | SubAgentAbandon;

/** What a session decides: a command from a binding, or one from a related session. */
export type SessionCommand = Command | SubAgentCommand;

export function isSubAgentCommand(command: SessionCommand): command is SubAgentCommand {
  return (
    command.type === 'SubAgentTask' ||
    command.type === 'SubAgentResult' ||
    command.type === 'SubAgentAbandon'
  );
}

export interface DelegateArguments {
  readonly task: string;
  readonly name: string;
  readonly tools?: readonly string[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;
const MAX_TASK = 40_000;

/** `{ "task": string, "name"?: string, "tools"?: string[] }`; the reason when refused. */
export function parseDelegateArguments(
  args: Record<string, unknown>,
): DelegateArguments | { readonly refused: string } {
  const { task, name, tools } = args;
  if (typeof task !== 'string' || task.trim() === '' || task.length > MAX_TASK) {
    return { refused: 'delegate needs a non-empty string `task` (at most 40000 characters)' };
  }
  if (name !== undefined && (typeof name !== 'string' || !NAME.test(name))) {
    return { refused: 'delegate `name` must be 1–64 letters, digits, spaces, _ . or -' };
  }
  if (
    tools !== undefined &&
    (!Array.isArray(tools) || !tools.every((t): t is string => typeof t === 'string'))
  ) {
    return { refused: 'delegate `tools` must be a list of tool names' };
  }
  return {
    task,
    name: typeof name === 'string' ? name : 'helper',
    ...(tools === undefined ? {} : { tools: tools }),
  };
}

export function subAgentTaskId(childSessionId: string): string {
  return `subagent-task:${childSessionId}`;
}

export function subAgentResultId(childSessionId: string, turnSeq: number): string {
  return `subagent-result:${childSessionId}:${turnSeq}`;
}

export function subAgentAbandonId(childSessionId: string, parentSeq: number): string {
  return `subagent-abandon:${childSessionId}:${parentSeq}`;
}
