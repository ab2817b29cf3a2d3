import { platformOfSessionId, type Platform } from '@tollgate/protocol';
import type { BindingJournal, BindingPrompt, SessionPending } from './pending-prompts.reader';

/** How one side sees a prompt. */
export type BindingView = 'pending' | 'untracked' | `cleared:${string}` | 'none' | 'unknown';

export interface PendingPrompt {
  readonly platform: Platform;
  readonly sessionId: string;
  readonly callId: string;
  readonly toolName: string | undefined;
  /** The earliest either side knew of it. */
  readonly since: Date | undefined;
  readonly session: 'pending' | 'not_pending';
  readonly binding: BindingView;
  /** Why the two disagree; undefined when they agree or the binding could not be read. */
  readonly disagreement: string | undefined;
}

/**
 * Puts the session's pending calls next to each binding's pending prompts. They should be
 * the same set: a call the session waits on that its binding does not show as live buttons
 * can never be answered, and live buttons the session no longer waits on can only be refused.
 * A very young disagreement may be an output still on its way.
 */
export function comparePending(
  session: readonly SessionPending[],
  bindings: ReadonlyMap<Platform, BindingJournal>,
): PendingPrompt[] {
  const key = (sessionId: string, callId: string) => `${sessionId}\u0000${callId}`;
  const prompts: PendingPrompt[] = [];
  const seen = new Set<string>();
  for (const call of session) {
    const platform = platformOfSessionId(call.sessionId);
    if (platform === undefined) continue;
    seen.add(key(call.sessionId, call.callId));
    const journal = bindings.get(platform);
    const row =
      journal?.kind === 'read'
        ? journal.prompts.find((p) => p.sessionId === call.sessionId && p.callId === call.callId)
        : undefined;
    const binding: BindingView = journal?.kind !== 'read' ? 'unknown' : viewOf(row);
    prompts.push({
      platform,
      sessionId: call.sessionId,
      callId: call.callId,
      toolName: call.toolName ?? row?.toolName,
      since: earliest(call.requestedAt, row?.since),
      session: 'pending',
      binding,
      disagreement:
        binding === 'pending' || binding === 'unknown'
          ? undefined
          : `pending in the session, but the ${platform} binding ${describe(binding)}`,
    });
  }
  for (const [platform, journal] of bindings) {
    if (journal.kind !== 'read') continue;
    for (const row of journal.prompts) {
      if (row.status !== 'pending' || seen.has(key(row.sessionId, row.callId))) continue;
      prompts.push({
        platform,
        sessionId: row.sessionId,
        callId: row.callId,
        toolName: row.toolName,
        since: row.since,
        session: 'not_pending',
        binding: 'pending',
        disagreement: `tracked as pending by the ${platform} binding, but not pending in the session`,
      });
    }
  }
  return prompts.sort(
    (a, b) =>
      a.platform.localeCompare(b.platform) ||
      (a.since?.getTime() ?? 0) - (b.since?.getTime() ?? 0) ||
      a.sessionId.localeCompare(b.sessionId) ||
      a.callId.localeCompare(b.callId),
  );
}

function viewOf(row: BindingPrompt | undefined): BindingView {
  if (row === undefined) return 'none';
  switch (row.status) {
    case 'pending':
      return 'pending';
    case 'untracked':
      return 'untracked';
    case 'cleared':
      return `cleared:${row.outcome ?? 'unknown'}`;
  }
}

function describe(binding: BindingView): string {
  if (binding === 'none') return 'has no prompt for it';
  if (binding === 'untracked') return 'has not finished posting it (untracked)';
  return `has cleared it (${binding.slice('cleared:'.length)})`;
}

function earliest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a < b ? a : b;
}

/** `3d4h`, `4m12s`, `9s`: the two largest units, enough to tell stuck from in flight. */
export function ageOf(since: Date | undefined, now: Date): string {
  if (since === undefined) return '?';
  let seconds = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 1000));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (seconds >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  return parts.slice(0, 2).join('');
}
