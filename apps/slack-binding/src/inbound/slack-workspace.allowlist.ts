import type { SignatureVerdict } from '@tollgate/binding-core';

/** SLACK_ALLOWED_TEAM_IDS / SLACK_ALLOWED_APP_IDS, parsed; an empty list allows any. */
export interface SlackAllowlist {
  readonly teamIds: readonly string[];
  readonly appIds: readonly string[];
}

/**
 * A request correctly signed with this app's secret still names a workspace and an app. When
 * the operator lists the ones this deployment serves, anything else is refused before it is
 * read further (`team_not_allowed`, `app_not_allowed`): a signing secret shared by mistake with
 * another app, or an app installed in a workspace nobody meant, asks for no approvals here.
 * The ids are read from the signed body itself: the Events API's `team_id` / `api_app_id`, an
 * interaction payload's `team.id` (or `user.team_id`) / `api_app_id`.
 */
export function checkSlackAllowlist(
  allow: SlackAllowlist,
  rawBody: Buffer | undefined,
): SignatureVerdict {
  if (allow.teamIds.length === 0 && allow.appIds.length === 0) return { ok: true };
  const ids = idsOf(rawBody?.toString('utf8') ?? '');
  if (allow.teamIds.length > 0 && (ids.team === undefined || !allow.teamIds.includes(ids.team))) {
    return { ok: false, reason: 'team_not_allowed' };
  }
  if (allow.appIds.length > 0 && (ids.app === undefined || !allow.appIds.includes(ids.app))) {
    return { ok: false, reason: 'app_not_allowed' };
  }
  return { ok: true };
}

function idsOf(body: string): { team?: string; app?: string } {
  const parsed = parse(body);
  if (parsed === undefined) return {};
  const team =
    text(parsed.team_id) ??
    text((parsed.team as Record<string, unknown> | undefined)?.id) ??
    text((parsed.user as Record<string, unknown> | undefined)?.team_id);
  return { team, app: text(parsed.api_app_id) };
}

/** The Events API posts JSON; interactions and slash commands a form, with `payload` as JSON. */
function parse(body: string): Record<string, unknown> | undefined {
  try {
    const trimmed = body.trimStart();
    if (trimmed.startsWith('{')) return object(JSON.parse(trimmed));
    const form = new URLSearchParams(body);
    const payload = form.get('payload');
    if (payload !== null) return object(JSON.parse(payload));
    return Object.fromEntries(form);
  } catch {
    return undefined;
  }
}

function object(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
