import { hash } from 'node:crypto';
import type { Conversation } from './conversation.schema';
import { PLATFORMS, type Platform } from './platform';

const SESSION_ID_PATTERN = new RegExp(`^(${PLATFORMS.join('|')})-(?:api-)?[0-9a-f]{32}$`);
const AGENT_SESSION_ID_PATTERN = new RegExp(`^(${PLATFORMS.join('|')})-api-[0-9a-f]{32}$`);

/**
 * Deterministic, so every replica and every test derives the same id for a conversation
 * without asking anyone (docs/protocol.md §1).
 */
export function deriveSessionId(conversation: Conversation): string {
  const { platform, workspaceId, channelId, threadId } = conversation;
  return `${platform}-${sha256Hex32(`${workspaceId}/${channelId}/${threadId}`)}`;
}

/**
 * The first 32 hex digits of the text's SHA-256 (UTF-8). One-shot: every output and command
 * is checked against its conversation's session id (parseMessage), and a Hash object made,
 * fed and finished per message cost 2.4 times as much (0.87 against 0.36 µs here).
 */
function sha256Hex32(text: string): string {
  return hash('sha256', text, 'hex').slice(0, 32);
}

/**
 * A sub-agent's session (docs/protocol.md §1, added 2026-12-01): derived from its parent's
 * session and the parent's `delegate` call, on the parent's platform, so it is a session id
 * like any other (subjects, ledgers) and anyone holding the conversation and the call can
 * check it.
 */
export function deriveSubAgentSessionId(parentSessionId: string, parentCallId: string): string {
  const platform = platformOfSessionId(parentSessionId);
  if (platform === undefined) throw new Error(`${parentSessionId} is not a session id`);
  return `${platform}-${sha256Hex32(`${parentSessionId}/${parentCallId}`)}`;
}

/**
 * An outside agent's session (docs/protocol.md, the approval API): one per client and agent
 * session id, on the platform of the route its prompts go to, so clicks on them keep arriving
 * from that platform's binding under the existing platform checks. `-api-` keeps it apart from
 * every conversation's and sub-agent's session id.
 */
export function deriveAgentSessionId(
  platform: Platform,
  clientId: string,
  agentSession: string,
): string {
  return `${platform}-api-${sha256Hex32(`${clientId}/${agentSession}`)}`;
}

/** Whether `value` has the shape of an agent session id (it is then a session id too). */
export function isAgentSessionId(value: string): boolean {
  return AGENT_SESSION_ID_PATTERN.test(value);
}

/**
 * Whether `value` has the shape of a derived session id (a conversation's, a sub-agent's or an
 * agent's); it is then a safe subject token.
 */
export function isSessionId(value: string): boolean {
  return SESSION_ID_PATTERN.test(value);
}

/** The platform a session id was derived for, or undefined when it is not a session id. */
export function platformOfSessionId(value: string): Platform | undefined {
  const match = SESSION_ID_PATTERN.exec(value);
  return match === null ? undefined : PLATFORMS.find((platform) => platform === match[1]);
}
