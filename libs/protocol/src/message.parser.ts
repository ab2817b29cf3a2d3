import type { z } from 'zod';
import {
  approvalCancelSchema,
  approvalRequestSchema,
  approvalSessionProblem,
} from './approval-commands.schema';
import {
  COMMAND_TYPES,
  joinSessionSchema,
  toolInteractionResponseSchema,
  toolInteractionUndeliverableSchema,
  toolInteractionShownSchema,
  userMessageSchema,
  type Command,
  type CommandType,
} from './commands.schema';
import { PROTOCOL_VERSION } from './envelope.schema';
import { issueDetail } from './issue-detail';
import { decodeJson } from './message.codec';
import { commandSubject, outputSubject } from './message-subject';
import {
  OUTPUT_TYPES,
  textOutputSchema,
  toolInteractionRejectedSchema,
  toolInteractionRequestSchema,
  toolInteractionResolvedSchema,
  toolInteractionUpdateSchema,
  type Output,
  type OutputType,
} from './outputs.schema';
import { accepted, quoteValue, refused, type ParseResult } from './parse-result';
import {
  deriveSessionId,
  deriveSubAgentSessionId,
  isAgentSessionId,
  platformOfSessionId,
} from './session-id';
import type { Subjects } from './subjects';

type SchemasByType<M extends { type: string }> = {
  [T in M['type']]: z.ZodType<Extract<M, { type: T }>>;
};

// Mapped over the type names, so adding a message type without its schema does not compile.
const COMMAND_SCHEMAS: SchemasByType<Command> = {
  UserMessage: userMessageSchema,
  JoinSession: joinSessionSchema,
  ToolInteractionResponse: toolInteractionResponseSchema,
  ToolInteractionUndeliverable: toolInteractionUndeliverableSchema,
  ToolInteractionShown: toolInteractionShownSchema,
  ApprovalRequest: approvalRequestSchema,
  ApprovalCancel: approvalCancelSchema,
};

const OUTPUT_SCHEMAS: SchemasByType<Output> = {
  ToolInteractionRequest: toolInteractionRequestSchema,
  ToolInteractionUpdate: toolInteractionUpdateSchema,
  ToolInteractionResolved: toolInteractionResolvedSchema,
  ToolInteractionRejected: toolInteractionRejectedSchema,
  TextOutput: textOutputSchema,
};

/**
 * Validates a command from bytes, JSON text or an already decoded value. Never throws: every
 * refusal carries a reason a consumer can dead-letter with.
 */
export function parseCommand(input: unknown): ParseResult<Command> {
  return parseMessage(input, 'command', COMMAND_TYPES, COMMAND_SCHEMAS, OUTPUT_TYPES);
}

/** As {@link parseCommand}, for outputs. */
export function parseOutput(input: unknown): ParseResult<Output> {
  return parseMessage(input, 'output', OUTPUT_TYPES, OUTPUT_SCHEMAS, COMMAND_TYPES);
}

/**
 * A command together with the subject it arrived on. A valid payload on another session's
 * subject would otherwise be applied to the session its body names, unseen by whoever
 * routed by subject. The subject's platform is what NATS permissions confined the sender
 * to, so a command whose subject platform, session id and conversation do not all name the
 * same platform is refused as `platform_mismatch` (docs/protocol.md §2, revised 2026-11-30).
 */
export function parseCommandForSubject(
  subjects: Subjects,
  subject: string,
  input: unknown,
): ParseResult<Command> {
  const result = parseCommand(input);
  if (!result.ok) {
    return result;
  }
  const command = result.value;
  const routed = subjects.parseCommandSubject(subject);
  if (!routed.ok) {
    return routed;
  }
  // parseCommand has already tied the payload's session id to its conversation's platform;
  // under `api` the subject match below ties the command type to the token.
  if (routed.value.platform !== 'api' && routed.value.platform !== command.conversation.platform) {
    return refused(
      'platform_mismatch',
      `arrived on ${quoteValue(subject, 160)} (platform ${routed.value.platform}) but its conversation is on ${command.conversation.platform}`,
    );
  }
  return matchSubject(command, subject, commandSubject(subjects, command));
}

/** As {@link parseCommandForSubject}, for outputs. */
export function parseOutputForSubject(
  subjects: Subjects,
  subject: string,
  input: unknown,
): ParseResult<Output> {
  const result = parseOutput(input);
  if (!result.ok) {
    return result;
  }
  return matchSubject(result.value, subject, outputSubject(subjects, result.value));
}

function parseMessage<M extends Command | Output>(
  input: unknown,
  direction: 'command' | 'output',
  types: readonly M['type'][],
  schemas: SchemasByType<M>,
  otherDirectionTypes: readonly (CommandType | OutputType)[],
): ParseResult<M> {
  const decoded = decodeJson(input);
  if (!decoded.ok) {
    return decoded;
  }
  const message = decoded.value;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return refused('not_an_object', `payload is ${describe(message)}, not a JSON object`);
  }
  // The version is checked before the type: a sender of another version may also use type
  // names this one does not know, and either way nothing about its payload can be assumed.
  const { v, type } = message as { v?: unknown; type?: unknown };
  if (v !== PROTOCOL_VERSION) {
    return refused('unknown_version', `v: expected ${PROTOCOL_VERSION}, got ${quoteValue(v)}`);
  }
  const knownType = types.find((known) => known === type);
  if (knownType === undefined) {
    const wrongDirection = otherDirectionTypes.some((other) => other === type);
    return refused(
      'unknown_type',
      wrongDirection
        ? `type: ${quoteValue(type)} is not ${article(direction)}`
        : `type: ${quoteValue(type)} is not a known ${direction} type`,
    );
  }
  const schema: z.ZodType<M> = schemas[knownType];
  const parsed = schema.safeParse(message);
  if (!parsed.success) {
    return refused('invalid_payload', `${knownType}: ${issueDetail(parsed.error)}`);
  }
  const problem = sessionProblem(parsed.data);
  return problem === undefined ? accepted(parsed.data) : refused('session_mismatch', problem);
}

/**
 * Why a message's `sessionId` does not belong to it, or undefined. A conversation's session is
 * derived from it; a sub-agent's from that and its parent call. An agent session (the approval
 * API) is derived from the client and the agent's session, which only the `ApprovalRequest`
 * carries: every other message on it is checked for its platform, and never for a model turn
 * (`UserMessage`) or a sub-agent, which an agent session has not.
 */
function sessionProblem(message: Command | Output): string | undefined {
  if (message.type === 'ApprovalRequest' || message.type === 'ApprovalCancel') {
    const problem = approvalSessionProblem(message);
    return problem === undefined
      ? undefined
      : `sessionId: ${quoteValue(message.sessionId)} ${problem}`;
  }
  const agent = (message as { agent?: { parentCallId: string } }).agent;
  if (isAgentSessionId(message.sessionId)) {
    if (message.type === 'UserMessage' || agent !== undefined) {
      return `sessionId: ${quoteValue(message.sessionId)} is an agent session, which has no ${message.type === 'UserMessage' ? 'model turn' : 'sub-agent'}`;
    }
    return platformOfSessionId(message.sessionId) === message.conversation.platform
      ? undefined
      : `sessionId: ${quoteValue(message.sessionId)} is not an agent session on ${message.conversation.platform}`;
  }
  const conversationSession = deriveSessionId(message.conversation);
  // A sub-agent's message names the parent call it serves, so its session is checked too.
  const expected =
    agent === undefined
      ? conversationSession
      : deriveSubAgentSessionId(conversationSession, agent.parentCallId);
  if (message.sessionId === expected) {
    return undefined;
  }
  return agent === undefined
    ? `sessionId: ${quoteValue(message.sessionId)} is not the session of its conversation (${expected})`
    : `sessionId: ${quoteValue(message.sessionId)} is not the sub-agent session of call ${quoteValue(agent.parentCallId)} in its conversation (${expected})`;
}

function matchSubject<M>(message: M, subject: string, expected: string): ParseResult<M> {
  return subject === expected
    ? accepted(message)
    : refused(
        'subject_mismatch',
        `arrived on ${quoteValue(subject, 160)} but belongs on ${quoteValue(expected, 160)}`,
      );
}

function describe(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function article(direction: 'command' | 'output'): string {
  return direction === 'command' ? 'a command' : 'an output';
}
