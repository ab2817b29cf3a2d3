import type { DataSource } from 'typeorm';

/** A call the session-service's `pending_approvals` projection holds as waiting. */
export interface SessionPending {
  readonly sessionId: string;
  readonly callId: string;
  readonly toolName: string | undefined;
  readonly requestedSeq: number;
  readonly requestedAt: Date | undefined;
}

/** A binding's `prompts` row for a prompt that is pending there or in the session. */
export interface BindingPrompt {
  readonly sessionId: string;
  readonly callId: string;
  readonly status: 'untracked' | 'pending' | 'cleared';
  readonly outcome: string | undefined;
  readonly toolName: string | undefined;
  /** When the journal first recorded the prompt; its row's last change if it has no event. */
  readonly since: Date;
}

export type BindingJournal =
  | { readonly kind: 'read'; readonly prompts: readonly BindingPrompt[] }
  | { readonly kind: 'missing'; readonly problem: string };

export async function readSessionPending(dataSource: DataSource): Promise<SessionPending[]> {
  const rows = await dataSource.query<
    {
      session_id: string;
      call_id: string;
      requested_seq: number;
      tool_name: string | null;
      occurred_at: Date | null;
    }[]
  >(
    `SELECT p.session_id, p.call_id, p.requested_seq, e.data->>'toolName' AS tool_name,
            e.occurred_at
     FROM pending_approvals p
     LEFT JOIN session_events e ON e.session_id = p.session_id AND e.seq = p.requested_seq
     ORDER BY p.session_id, p.requested_seq`,
  );
  return rows.map((r) => ({
    sessionId: r.session_id,
    callId: r.call_id,
    requestedSeq: r.requested_seq,
    toolName: r.tool_name ?? undefined,
    requestedAt: r.occurred_at === null ? undefined : new Date(r.occurred_at),
  }));
}

/**
 * One binding's prompts that are pending in its journal, and its rows for `keys` (the
 * session's pending calls of that platform) whatever their status. A binding's schema that
 * is missing is reported, not fatal: that binding may not be deployed.
 */
export async function readBindingJournal(
  dataSource: DataSource,
  schema: string,
  keys: readonly { sessionId: string; callId: string }[],
): Promise<BindingJournal> {
  const [found] = await dataSource.query<{ schema: boolean; prompts: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS schema,
            to_regclass(format('%I.prompts', $1::text)) IS NOT NULL
              AND to_regclass(format('%I.prompt_events', $1::text)) IS NOT NULL AS prompts`,
    [schema],
  );
  if (!found?.schema) {
    return { kind: 'missing', problem: `schema ${schema} does not exist` };
  }
  if (!found.prompts) {
    return { kind: 'missing', problem: `schema ${schema} has no prompt journal (not migrated)` };
  }
  // The name passed validateSchemaName, so quoting it is enough.
  const q = `"${schema}"`;
  const rows = await dataSource.query<
    {
      session_id: string;
      call_id: string;
      status: BindingPrompt['status'];
      outcome: string | null;
      tool_name: string | null;
      since: Date;
    }[]
  >(
    `SELECT p.session_id, p.call_id, p.status, p.outcome, p.request->>'toolName' AS tool_name,
            coalesce((SELECT min(e.recorded_at) FROM ${q}.prompt_events e
                      WHERE e.session_id = p.session_id AND e.call_id = p.call_id),
                     p.updated_at) AS since
     FROM ${q}.prompts p
     WHERE p.status = 'pending'
        OR (p.session_id, p.call_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
     ORDER BY p.session_id, p.call_id`,
    [keys.map((k) => k.sessionId), keys.map((k) => k.callId)],
  );
  return {
    kind: 'read',
    prompts: rows.map((r) => ({
      sessionId: r.session_id,
      callId: r.call_id,
      status: r.status,
      outcome: r.outcome ?? undefined,
      toolName: r.tool_name ?? undefined,
      since: new Date(r.since),
    })),
  };
}
