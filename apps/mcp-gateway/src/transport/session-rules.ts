/** A JSON-RPC request id: the SDK keys its open requests by it, so 1 and "1" are distinct. */
export type RequestId = string | number;

/** What the gateway knows of one live MCP session when it decides about it. */
export interface SessionView {
  readonly id: string;
  /** HTTP exchanges open on it: POSTs being answered (a held call among them), GET streams. */
  readonly open: number;
  /** When its last exchange ended or began (ms). */
  readonly lastActive: number;
}

export interface SessionLimits {
  /** A session with nothing open for this long is closed; its id can still be resumed. */
  readonly idleMs: number;
  /** Live sessions at most; a new or resumed one past it takes an idle one's place. */
  readonly max: number;
}

export type Admission =
  | { readonly kind: 'admit' }
  /** Room is made by closing this idle session (the least recently active); it can resume. */
  | { readonly kind: 'evict'; readonly id: string }
  /** Every live session has an exchange open: none can make room. */
  | { readonly kind: 'refuse'; readonly reason: 'session_limit' };

/**
 * Whether one more session may open. An idle session costs its agent nothing when closed (its
 * next request resumes it under the same id), so the oldest idle one gives way before anyone is
 * refused; only a gateway whose every session is busy says no.
 */
export function admitSession(
  live: readonly SessionView[],
  opening: number,
  limits: SessionLimits,
): Admission {
  if (live.length + opening < limits.max) return { kind: 'admit' };
  let oldest: SessionView | undefined;
  for (const session of live) {
    if (session.open > 0) continue;
    if (oldest === undefined || session.lastActive < oldest.lastActive) oldest = session;
  }
  return oldest === undefined
    ? { kind: 'refuse', reason: 'session_limit' }
    : { kind: 'evict', id: oldest.id };
}

/** The sessions idle past the limit at `now`: nothing open, and no exchange for `idleMs`. */
export function idleSessions(
  live: readonly SessionView[],
  now: number,
  limits: SessionLimits,
): string[] {
  return live.filter((s) => s.open === 0 && now - s.lastActive >= limits.idleMs).map((s) => s.id);
}

/** The ids of the JSON-RPC requests in a POST body (one message or a batch). */
export function requestIdsOf(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: RequestId[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) {
      ids.push(id);
    }
  }
  return ids;
}

/**
 * The first id of `incoming` already open on the session, or repeated within the batch. The
 * SDK's transport keys its answer streams by request id: a second request under an open id
 * would take the first one's stream, and the first would never be answered.
 */
export function duplicateRequestId(
  open: ReadonlySet<RequestId>,
  incoming: readonly RequestId[],
): RequestId | undefined {
  const seen = new Set<RequestId>();
  for (const id of incoming) {
    if (open.has(id) || seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}
