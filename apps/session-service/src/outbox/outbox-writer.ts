import { jsonArrayText, queryPrepared } from '@tollgate/persistence';
import {
  type ApprovalDecided,
  type Output,
  outputSubject,
  type Subjects,
} from '@tollgate/protocol';
import { currentTraceparent } from '@tollgate/telemetry';
import type { EntityManager } from 'typeorm';

/** Writes what a decision publishes into the `outbox` table, in the decision's transaction. */
export class OutboxWriter {
  constructor(
    private readonly subjects: Subjects,
    private readonly channel: string,
  ) {}

  /**
   * Queues the outputs, and the approval API's decision events (A2), and wakes the relay
   * (NOTIFY is delivered only if this commits). A decision's row id is its `Nats-Msg-Id`,
   * `decision:<approvalId>`: one per approval, whatever retries the outbox makes.
   */
  async enqueue(
    manager: EntityManager,
    outputs: readonly Output[],
    decisions: readonly ApprovalDecided[] = [],
  ): Promise<void> {
    const rows = [
      ...outputs.map((o) => ({
        id: o.id,
        sessionId: o.sessionId,
        subject: outputSubject(this.subjects, o),
        payload: JSON.stringify(o),
      })),
      ...decisions.map((d) => ({
        id: d.id,
        sessionId: d.sessionId,
        subject: this.subjects.decision(d.clientId, d.approvalId),
        payload: JSON.stringify(d),
      })),
    ];
    // Prepared, as every statement a decision commits with (queryPrepared).
    await queryPrepared(
      manager,
      'tollgate_outbox_queue',
      `WITH queued AS (
         INSERT INTO outbox (id, session_id, subject, payload, traceparent)
         SELECT o.id, o.session_id, o.subject, p.payload::text, $6::text
         FROM unnest($1::text[], $2::text[], $3::text[])
             WITH ORDINALITY AS o(id, session_id, subject, n)
           JOIN json_array_elements($4::json) WITH ORDINALITY AS p(payload, n) USING (n)
         ORDER BY o.n
         ON CONFLICT (id) DO NOTHING)
       SELECT pg_notify($5, '')`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.sessionId),
        rows.map((r) => r.subject),
        // One json array, not a text[] (whose every quote node-postgres escapes): a json
        // value's elements are slices of its text, so each payload is stored as written.
        jsonArrayText(rows.map((r) => r.payload)),
        this.channel,
        // The decision's span: the relay publishes these rows as its children.
        currentTraceparent(),
      ],
    );
  }
}
