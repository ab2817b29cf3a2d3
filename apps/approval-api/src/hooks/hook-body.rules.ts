import { createHash } from 'node:crypto';

/** The parts of a runtime's hook body an approval is made of. */
export interface HookAsk {
  readonly event: 'PermissionRequest' | 'PreToolUse';
  readonly sessionId: string;
  readonly tool: unknown;
  readonly toolInput: unknown;
  readonly summary?: string;
}

export type HookBodyVerdict =
  { readonly ok: true; readonly ask: HookAsk } | { readonly ok: false; readonly message: string };

const MAX_AGENT_SESSION = 200;

/**
 * Reads Claude Code's or Codex's hook body (`session_id`, `hook_event_name`, `tool_name`,
 * `tool_input`, and fields this does not need, such as `cwd`, `transcript_path`,
 * `permission_mode`, `turn_id`, `model`). Unknown fields are ignored: the runtimes add
 * fields between versions. The tool and its input are checked later, as any API request's.
 */
export function readHookBody(body: unknown, events: readonly HookAsk['event'][]): HookBodyVerdict {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: false, message: 'the body must be the hook input JSON object' };
  const fields = body as Record<string, unknown>;
  const event = events.find((e) => e === fields.hook_event_name);
  if (event === undefined)
    return { ok: false, message: `hook_event_name must be ${events.join(' or ')}` };
  const session = fields.session_id;
  if (typeof session !== 'string' || session === '')
    return { ok: false, message: 'session_id must be a non-empty string' };
  const input = fields.tool_input;
  const description =
    typeof input === 'object' && input !== null && !Array.isArray(input)
      ? (input as Record<string, unknown>).description
      : undefined;
  return {
    ok: true,
    ask: {
      event,
      sessionId: agentSessionOf(session),
      tool: fields.tool_name,
      toolInput: input,
      ...(typeof description === 'string' && description !== ''
        ? { summary: description.slice(0, 2_000) }
        : {}),
    },
  };
}

/** A runtime's session id as the agent session; an overlong one by its hash, still stable. */
function agentSessionOf(sessionId: string): string {
  return sessionId.length <= MAX_AGENT_SESSION
    ? sessionId
    : `sha256:${createHash('sha256').update(sessionId).digest('hex')}`;
}
