import { checkArguments, type Conversation, parseArgumentScope } from '@tollgate/protocol';
import {
  type GrantUse,
  holdsSessionGrant,
  type SessionState,
  type ToolCall,
} from '@tollgate/session-read-model';
import type { AlwaysGrantInForce, GrantClaim } from './tool-grants.port';
import { parseArguments } from './tool-call-arguments';

/**
 * The `ReadGrant` effect: which grants of the person whose message started the turn the shell
 * must read for one call, as data. "Allow in this chat" lives in the journal and, lapsing and
 * revocable, in `session_grants` (X14); "Always allow" in `tool_grants`. Either counts only
 * when that person holds it, so in a channel that is one conversation for ever (Discord) a
 * grant still covers only its giver's own messages.
 */
export interface ReadGrant {
  readonly type: 'ReadGrant';
  readonly call: ToolCall;
  readonly personId: string;
  readonly now: string;
  /** The journal holds the person's "Allow in this chat": is it still in force? */
  readonly session?: { readonly sessionId: string };
  /** Where an "Always allow" would be held; absent for a session with no conversation. */
  readonly conversation?: Conversation;
}

/** What the shell read for a ReadGrant. */
export interface GrantRead {
  /** `undefined`: the port keeps no record of session grants, the journal's word stands. */
  readonly sessionInForce?: boolean;
  /** `'blanket'`: a port that only answers yes/no for an unlimited, unscoped grant. */
  readonly always?: AlwaysGrantInForce | 'blanket';
}

/**
 * What to read for a call, or nothing when no grant can apply: an automation message has no
 * person behind it, so no one's grant does (only the policy's `mode: auto`).
 */
export function grantReadFor(
  state: SessionState,
  requester: { sender: { id: string }; principal: string },
  call: ToolCall,
  now: string,
): ReadGrant | undefined {
  if (requester.principal !== 'user') return undefined;
  const personId = requester.sender.id;
  const session = holdsSessionGrant(state, personId, call.toolName);
  if (!session && !state.conversation) return undefined;
  return {
    type: 'ReadGrant',
    call,
    personId,
    now,
    ...(session ? { session: { sessionId: state.sessionId } } : {}),
    ...(state.conversation ? { conversation: state.conversation } : {}),
  };
}

/**
 * The use a call takes of what was read: a session grant in force, else an "Always allow"
 * whose scope covers the arguments. A limited one (G3) is only a use once its claim is taken
 * (`claim`), in the transaction that journals the call.
 */
export function grantUseOf(
  read: ReadGrant,
  found: GrantRead,
): { readonly use: GrantUse; readonly claim?: GrantClaim } | undefined {
  const { personId, call } = read;
  if (read.session && (found.sessionInForce ?? true)) {
    return { use: { kind: 'session', personId } };
  }
  const grant = found.always;
  if (grant === undefined || !read.conversation) return undefined;
  if (grant === 'blanket') return { use: { kind: 'always', personId } };
  if (!withinScope(grant.scope, call)) return undefined;
  const use: GrantUse = {
    kind: 'always',
    personId,
    grantedAt: grant.grantedAt,
    ...(grant.expiresAt === undefined ? {} : { expiresAt: grant.expiresAt }),
    ...(grant.scope === undefined ? {} : { scope: grant.scope }),
  };
  if (grant.usesLeft === undefined) return { use };
  return {
    use,
    claim: {
      platform: read.conversation.platform,
      workspaceId: read.conversation.workspaceId,
      personId,
      toolName: call.toolName,
      grantedAt: grant.grantedAt,
      now: read.now,
    },
  };
}

/** A scope the stored grant holds but this version cannot read covers nothing (fails closed). */
function withinScope(scope: AlwaysGrantInForce['scope'], call: ToolCall): boolean {
  if (scope === undefined) return true;
  const parsed = parseArgumentScope(scope);
  return parsed.ok && checkArguments(parsed.scope, parseArguments(call.arguments)).ok;
}
