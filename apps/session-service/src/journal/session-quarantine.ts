import { fromJsonbValue } from '@tollgate/persistence';
import { type ApprovalDecided, approvalDecidedId, PROTOCOL_VERSION } from '@tollgate/protocol';
import type { DataSource } from 'typeorm';
import type { OutboxWriter } from '../outbox/outbox-writer';
import { type OutputDraft, SessionRecorder } from '../session/domain/session-recorder';
import { initialSessionState, type SessionState } from '@tollgate/session-read-model';
import { type SubAgentParent, subAgentResultId } from '../session/domain/sub-agent';
import { appendEvents } from './event-journal';
import { dispatchCommands, type InboxEntry } from './session-inbox';
import { lockSession } from './session-lock';

/**
 * S18: a session that cannot be replayed or recovered is set aside so the others go on. Its
 * open prompts are expired with a notice (appended without replaying: the outputs' seq is
 * past every seq the session used), and it takes no more commands.
 */
export class SessionQuarantine {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly now: () => string,
  ) {}

  async quarantine(
    sessionId: string,
    reason: string,
  ): Promise<{ expired: string[]; dispatched: InboxEntry[] }> {
    return this.dataSource.transaction(async (manager) => {
      await lockSession(manager, sessionId);
      const already = await manager.query<unknown[]>(
        `SELECT 1 FROM quarantined_sessions WHERE session_id = $1`,
        [sessionId],
      );
      if (already.length > 0) return { expired: [], dispatched: [] };
      const pending = (
        await manager.query<{ call_id: string }[]>(
          `SELECT call_id FROM pending_approvals WHERE session_id = $1 ORDER BY requested_seq`,
          [sessionId],
        )
      ).map((r) => r.call_id);
      const [last] = await manager.query<{ seq: number | null; started: unknown }[]>(
        `SELECT (SELECT max(seq) FROM session_events WHERE session_id = $1) AS seq,
                (SELECT data FROM session_events
                 WHERE session_id = $1 AND type = 'SessionStarted' ORDER BY seq LIMIT 1) AS started`,
        [sessionId],
      );
      const started = last?.started
        ? fromJsonbValue<{
            conversation?: unknown;
            parent?: SubAgentParent;
            apiClientId?: string;
          }>(last.started)
        : {};
      const conversation = started.conversation;
      let dispatched: InboxEntry[] = [];
      if (last?.seq && isConversation(conversation)) {
        const base: SessionState = {
          ...initialSessionState(sessionId),
          version: last.seq,
          conversation,
          // A sub-agent's notice and expiries name it, in its parent's conversation.
          ...(started.parent ? { parent: started.parent } : {}),
        };
        const recorder = new SessionRecorder(base, this.now());
        const reasonText = reason.slice(0, 500);
        const { apiClientId } = started;
        // A2: each API approval that can no longer be answered ends as expired for its agent.
        const decisions = (apiClientId === undefined ? [] : pending).map(
          (approvalId): ApprovalDecided => ({
            type: 'ApprovalDecided',
            v: PROTOCOL_VERSION,
            id: approvalDecidedId(approvalId),
            occurredAt: recorder.clock,
            sessionId,
            approvalId,
            clientId: apiClientId ?? '',
            status: 'expired',
            decision: null,
            decidedAt: recorder.clock,
          }),
        );
        recorder.record(
          { type: 'SessionQuarantined', reason: reasonText, expiredCallIds: pending },
          [
            ...pending.map((callId): OutputDraft => ({
              type: 'ToolInteractionUpdate',
              callId,
              status: 'Expired',
              reason: 'expired: this conversation could not be restored',
            })),
            {
              type: 'TextOutput',
              role: 'notice',
              text: 'This conversation could not be restored after a restart; its open requests have expired and nothing was run. Please start a new conversation.',
            },
          ],
        );
        await appendEvents(
          manager,
          recorder.recorded.map((e) => ({ ...e, sessionId })),
        );
        const outputs = recorder.recorded.flatMap((e) => e.outputs);
        await this.outbox.enqueue(manager, outputs, decisions);
        if (started.parent) {
          // The parent's `delegate` call fails with a reason its model sees (S21).
          dispatched = await dispatchCommands(manager, [
            {
              type: 'SubAgentResult',
              id: subAgentResultId(sessionId, last.seq),
              sessionId: started.parent.sessionId,
              callId: started.parent.callId,
              childSessionId: sessionId,
              outcome: 'failed',
              result: 'its conversation could not be restored; its requests expired',
            },
          ]);
        }
      }
      // Queued commands go too: the notice tells the chat, and the log names the session.
      for (const table of [
        'pending_approvals',
        'sessions_in_flight',
        'session_state',
        'session_inbox',
      ]) {
        await manager.query(`DELETE FROM ${table} WHERE session_id = $1`, [sessionId]);
      }
      await manager.query(`INSERT INTO quarantined_sessions (session_id, reason) VALUES ($1, $2)`, [
        sessionId,
        reason.slice(0, 2000),
      ]);
      return { expired: pending, dispatched };
    });
  }
}

function isConversation(value: unknown): value is NonNullable<SessionState['conversation']> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { platform?: unknown }).platform === 'string' &&
    typeof (value as { channelId?: unknown }).channelId === 'string'
  );
}
