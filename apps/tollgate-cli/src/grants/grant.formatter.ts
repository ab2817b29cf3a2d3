import type { GrantRecord } from '@tollgate/session-read-model';

/**
 * `key=value`, the value quoted as JSON unless it is a plain token. Ids and display names
 * come from chat platforms: quoting keeps an empty workspace visible and a control
 * character in a name from reaching the operator's terminal.
 */
export function field(key: string, value: string): string {
  return `${key}=${/^[A-Za-z0-9._:@-]+$/.test(value) ? value : JSON.stringify(value)}`;
}

/** One line per grant, in the filter's own terms, so a line can be pasted into a revoke. */
export function grantLine(grant: GrantRecord): string {
  return [
    field('platform', grant.platform),
    field('workspace', grant.workspaceId),
    field('person', grant.personId),
    ...(grant.grantedBy.displayName === undefined
      ? []
      : [`name=${JSON.stringify(grant.grantedBy.displayName)}`]),
    field('tool', grant.toolName),
    // A2: a grant given on an approval API prompt covers that client only.
    ...(grant.clientId === '' ? [] : [field('client', grant.clientId)]),
    `granted=${grant.grantedAt.toISOString()}`,
    field('session', grant.sessionId),
    // X14: "Allow in this chat" covers that session only, and lapses.
    ...(grant.kind === 'session' ? ['kind=session'] : []),
    // G3: an "Always allow" may cover some arguments only, lapse and run out.
    ...(grant.scope ? [field('scope', JSON.stringify(grant.scope))] : []),
    ...(grant.usesLeft === undefined
      ? []
      : [`uses=${grant.usesLeft}/${grant.usesGranted ?? grant.usesLeft}`]),
    ...(grant.expiresAt ? [`expires=${grant.expiresAt.toISOString()}`] : []),
  ].join(' ');
}

export function grantJson(grant: GrantRecord): string {
  return JSON.stringify({
    platform: grant.platform,
    workspaceId: grant.workspaceId,
    person: grant.grantedBy,
    toolName: grant.toolName,
    ...(grant.clientId === '' ? {} : { clientId: grant.clientId }),
    grantedAt: grant.grantedAt.toISOString(),
    sessionId: grant.sessionId,
    kind: grant.kind,
    ...(grant.expiresAt ? { expiresAt: grant.expiresAt.toISOString() } : {}),
    ...(grant.scope ? { scope: grant.scope } : {}),
    ...(grant.usesLeft === undefined
      ? {}
      : { usesLeft: grant.usesLeft, usesGranted: grant.usesGranted ?? grant.usesLeft }),
  });
}

export function grantCount(count: number): string {
  return `${count} grant${count === 1 ? '' : 's'}`;
}
