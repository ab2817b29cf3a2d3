// Journaling several prompts' effects in one statement: what `record` does for one prompt, for
// the records a replica's handlers finish together (RecordBatcher). Apart from the single
// statement so each reads whole.
import { jsonArrayText, queryPrepared, toJsonbText } from '@tollgate/persistence';
import type { PromptEvent } from '../prompt/prompt-event';
import type { PromptKey, PromptState } from '../prompt/prompt-state';
import { projectionOf } from './prompt-journal.rows';
import type { Statements } from './prompt-journal.writes';

/** One prompt's journaling, as `record` takes it. */
export interface RecordRequest {
  readonly key: PromptKey;
  readonly events: readonly PromptEvent[];
  readonly state: PromptState;
  /** Only while this claim still holds the prompt; null: unconditionally. */
  readonly claimId: string | null;
  readonly postNonce?: string | undefined;
  /** The row's request stays as it is (a resolution or a refresh keeps it). */
  readonly keepRequest: boolean;
}

/**
 * As `record`'s statement, row n of the arrays being request n. The jsonb values travel as one
 * json array each (jsonArrayText), where a JSON null stands for SQL NULL: neither a request nor
 * a message ref is ever JSON null itself. Events are flattened, each naming its request's row;
 * they are appended in the order given, a request's only if its projection was written.
 */
const RECORD_MANY = `
  WITH input AS (
    SELECT i.*, r.request, m.message_ref
    FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::boolean[], $6::text[],
                $7::text[], $8::text[])
           WITH ORDINALITY AS i(session_id, call_id, status, last_seq, keep_request, outcome,
                                claim_id, post_nonce, n)
      JOIN jsonb_array_elements($9::jsonb) WITH ORDINALITY AS r(request, n) USING (n)
      JOIN jsonb_array_elements($10::jsonb) WITH ORDINALITY AS m(message_ref, n) USING (n)),
  projected AS (
    UPDATE prompts p
    SET status = i.status, last_seq = i.last_seq,
        request = CASE WHEN i.keep_request THEN p.request
                       ELSE NULLIF(i.request, 'null'::jsonb) END,
        message_ref = NULLIF(i.message_ref, 'null'::jsonb), outcome = i.outcome,
        post_nonce = COALESCE(i.post_nonce, p.post_nonce),
        lease_owner = NULL, lease_until = NULL, intent = NULL, updated_at = now()
    FROM input i
    WHERE p.session_id = i.session_id AND p.call_id = i.call_id
      AND (i.claim_id IS NULL OR p.intent->>'claimId' = i.claim_id)
    RETURNING i.n),
  appended AS (
    INSERT INTO prompt_events (session_id, call_id, seq, type, data)
    SELECT i.session_id, i.call_id, e.seq, e.type, d.data
    FROM unnest($11::int[], $12::int[], $13::text[]) WITH ORDINALITY AS e(row_n, seq, type, n)
      JOIN jsonb_array_elements($14::jsonb) WITH ORDINALITY AS d(data, n) USING (n)
      JOIN input i ON i.n = e.row_n
    WHERE e.row_n IN (SELECT n FROM projected)
    ORDER BY e.n)
  SELECT n::int AS n FROM projected`;

/**
 * Journals every request in one statement; for each, whether it was written (false: its claim
 * no longer held the prompt). Two requests of one prompt must not share a call: an UPDATE
 * writes a row once, whichever of its matches it takes.
 */
export async function recordMany(
  statements: Statements,
  requests: readonly RecordRequest[],
): Promise<boolean[]> {
  const columns = requests.map((request) => projectionOf(request.state));
  const events = requests.flatMap((request, i) =>
    request.events.map((event) => ({ row: i + 1, event })),
  );
  const written = await queryPrepared<{ n: number }>(
    statements,
    'tollgate_prompt_record_many',
    RECORD_MANY,
    [
      requests.map((r) => r.key.sessionId),
      requests.map((r) => r.key.callId),
      columns.map((c) => c.status),
      columns.map((c) => c.lastSeq),
      requests.map((r) => r.keepRequest),
      columns.map((c) => c.outcome ?? null),
      requests.map((r) => r.claimId),
      requests.map((r) => r.postNonce ?? null),
      jsonArrayText(
        columns.map((c, i) =>
          c.request === undefined || requests[i].keepRequest ? 'null' : toJsonbText(c.request),
        ),
      ),
      jsonArrayText(
        columns.map((c) => (c.messageRef === undefined ? 'null' : toJsonbText(c.messageRef))),
      ),
      events.map((e) => e.row),
      events.map((e) => e.event.seq),
      events.map((e) => e.event.type),
      jsonArrayText(events.map((e) => toJsonbText(e.event))),
    ],
  );
  const done = new Set(written.map((row) => row.n));
  return requests.map((_, i) => done.has(i + 1));
}
