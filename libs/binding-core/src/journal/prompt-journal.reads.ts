// The prompt journal's reads: a prompt by key or by ref, and the pending prompts a session or
// an approver is shown. No lease, no write; apart from the repository, which adds the
// claims and the journaling on top (PromptJournalRepository extends this class).
import type { Conversation, ToolInteractionRequest } from '@tollgate/protocol';
import { UNTRACKED, type PromptKey, type PromptState } from '../prompt/prompt-state';
import type { DataSourceAccess } from './data-source-access';
import type {
  ApproverMembers,
  JournaledPrompt,
  PendingPrompt,
  PromptAddress,
} from './prompt-journal.port';
import {
  decodedRow,
  pendingPrompts,
  stateOfRow,
  type PendingRow,
  type PromptRow,
} from './prompt-journal.rows';

/** The reads of {@link PromptJournal}, through raw SQL on the service's data source. */
export class PromptJournalReads {
  constructor(protected readonly db: DataSourceAccess) {}

  async stateOf(key: PromptKey): Promise<PromptState> {
    const row = await this.rowByKey(key);
    return row === undefined ? UNTRACKED : stateOfRow(row);
  }

  async findByKey(key: PromptKey): Promise<JournaledPrompt | undefined> {
    const row = await this.rowByKey(key);
    return row === undefined
      ? undefined
      : {
          key,
          conversation: row.conversation,
          promptRef: row.prompt_ref,
          state: stateOfRow(row),
          ...(row.post_nonce === null ? {} : { postNonce: row.post_nonce }),
        };
  }

  /** One prompt's row, its jsonb columns decoded, with no lease taken (`leased` is false). */
  private async rowByKey(key: PromptKey): Promise<PromptRow | undefined> {
    const dataSource = await this.db();
    const rows: PromptRow[] = await dataSource.query(
      `SELECT prompt_ref, conversation, status, last_seq, request, message_ref, outcome,
              post_nonce, lease_owner, intent, false AS leased, NULL AS lease_remaining_ms
       FROM prompts WHERE session_id = $1 AND call_id = $2`,
      [key.sessionId, key.callId],
    );
    return rows[0] === undefined ? undefined : decodedRow(rows[0]);
  }

  async findByRef(promptRef: string): Promise<PromptAddress | undefined> {
    const dataSource = await this.db();
    const rows: {
      session_id: string;
      call_id: string;
      conversation: Conversation;
      prompt_ref: string;
      agent: ToolInteractionRequest['agent'] | null;
      traceparent: string | null;
      approver_members: ApproverMembers | null;
    }[] = await dataSource.query(
      `SELECT session_id, call_id, conversation, prompt_ref, request->'agent' AS agent, traceparent,
              approver_members
       FROM prompts WHERE prompt_ref = $1`,
      [promptRef],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : {
          key: { sessionId: row.session_id, callId: row.call_id },
          conversation: row.conversation,
          promptRef: row.prompt_ref,
          ...(row.agent ? { agent: row.agent } : {}),
          ...(row.traceparent ? { traceparent: row.traceparent } : {}),
          ...(row.approver_members ? { approverMembers: row.approver_members } : {}),
        };
  }

  async pendingIn(sessionId: string, conversation?: Conversation): Promise<PendingPrompt[]> {
    const dataSource = await this.db();
    // The primary key (session_id, call_id) serves the session's own prompts; a sub-agent's
    // are found by the conversation they are shown in (their session id is not derived from
    // it). The approval API's have their own rule (pendingApprovalsFor).
    const rows: PendingRow[] = await dataSource.query(
      `SELECT session_id, call_id, conversation, prompt_ref, request, message_ref, traceparent,
              approver_members
       FROM prompts
       WHERE status = 'pending'
         AND (session_id = $1
              OR ($2::jsonb IS NOT NULL AND conversation = $2::jsonb AND request ? 'agent'
                  AND session_id NOT LIKE '%-api-%'))`,
      [sessionId, conversation === undefined ? null : JSON.stringify(conversation)],
    );
    return pendingPrompts(rows);
  }

  async pendingApprovalsFor(
    conversation: Conversation,
    personId: string,
  ): Promise<PendingPrompt[]> {
    const dataSource = await this.db();
    // The partial index prompts_pending_api serves this lookup (its predicate repeated here).
    const rows: PendingRow[] = await dataSource.query(
      `SELECT session_id, call_id, conversation, prompt_ref, request, message_ref, traceparent,
              approver_members
       FROM prompts
       WHERE status = 'pending' AND session_id LIKE '%-api-%' AND conversation = $1::jsonb
         AND request->'approvers' @> jsonb_build_array(jsonb_build_object('id', $2::text))`,
      [JSON.stringify(conversation), personId],
    );
    return pendingPrompts(rows);
  }
}
