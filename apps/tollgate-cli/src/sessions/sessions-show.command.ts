import { isSessionId, type Quorum } from '@tollgate/protocol';
import {
  decisionFor,
  ownEntry,
  pendingApiApprovals,
  pendingPrompts,
} from '@tollgate/session-read-model';
import { type CliCommand, CliFailure, EXIT, UsageError } from '../cli-command';
import { field } from '../grants/grant.formatter';
import { ageOf } from '../pending/pending-prompts.report';
import { readSession, type SessionView } from './session-view.reader';

export const SESSIONS_SHOW: CliCommand = {
  path: ['sessions', 'show'],
  summary: "a session's approval-turn phase and the calls it waits on",
  usage: '<session id> [--json]',
  operands: { min: 1, max: 1 },
  help: [
    'Shows one session as the session-service would load it for its next command (its state',
    "row plus the journal after it, replayed by the service's own code): the conversation, the",
    'approval-turn phase, the gated calls of the current batch with their answers, the calls',
    'still pending and how long they have waited, commands queued behind the turn, and',
    'whether the session is quarantined. A session id looks like slack-<32 hex>, the key',
    'tollgate logs and `pending` print.',
    '',
    'Options:',
    '  --json          one JSON object, nothing else',
    '  -h, --help      this text',
  ].join('\n'),
  options: { json: { type: 'boolean' } },

  async run(values, { io, sessionDatabase }, operands) {
    const sessionId = operands[0];
    if (!isSessionId(sessionId)) {
      throw new UsageError(`"${sessionId}" is not a session id (<platform>-<32 hex>)`);
    }
    const read = await readSession((await sessionDatabase()).dataSource, sessionId);
    if (read.kind === 'not_found')
      throw new CliFailure(`no session ${sessionId}: its journal is empty`);
    if (read.kind === 'unreplayable') {
      throw new CliFailure(
        `session ${sessionId} (${read.events} events) cannot be replayed by this build: ${read.error}`,
      );
    }
    const now = new Date();
    if (values.json === true) {
      io.out(JSON.stringify(viewJson(sessionId, read.view, now)));
      return EXIT.ok;
    }
    for (const line of viewLines(sessionId, read.view, now)) io.out(line);
    return EXIT.ok;
  },
};

function viewLines(sessionId: string, view: SessionView, now: Date): string[] {
  const { state } = view;
  const turn = state.turn;
  const c = state.conversation;
  // A2: an agent session's pending API approvals count as its pending calls.
  const pending = pendingPrompts(state);
  const lines = [
    `session: ${sessionId}`,
    c === undefined
      ? 'conversation: ?'
      : `conversation: ${[
          field('platform', c.platform),
          field('workspace', c.workspaceId),
          field('channel', c.channelId),
          field('thread', c.threadId),
        ].join(' ')}`,
    `journal: ${view.events} events, at seq ${state.version}; ${
      view.stateRow === undefined
        ? 'no state row of this format (replayed from the start)'
        : `state row at seq ${view.stateRow.version}, written ${view.stateRow.updatedAt.toISOString()}`
    }`,
    `phase: ${turn.phase}${'turnSeq' in turn ? ` (turn started at seq ${turn.turnSeq})` : ''}` +
      ('recoveries' in turn ? `, recovered ${turn.recoveries} time(s)` : '') +
      ('reason' in turn ? `, reason ${turn.reason}` : ''),
  ];
  if (state.turnMessage !== undefined) {
    const sender = state.turnMessage.sender;
    lines.push(
      `requested by: ${field('person', sender.id)}` +
        (sender.displayName === undefined ? '' : ` name=${JSON.stringify(sender.displayName)}`),
    );
  }
  if ('batch' in turn && turn.batch !== undefined) {
    lines.push(
      `batch: ${field('id', turn.batch.batchId)}, ${turn.batch.gated.length} gated call(s)`,
    );
    for (const call of turn.batch.gated) {
      const decision = decisionFor(turn, call.callId);
      lines.push(
        `  ${field('call', call.callId)} ${field('tool', call.toolName)} requested_seq=${call.requestedSeq} ` +
          (decision !== undefined
            ? `answered option=${decision.optionKey} approved=${decision.approved}`
            : pending.some((p) => p.callId === call.callId)
              ? `pending age=${ageOf(view.requestedAt.get(call.requestedSeq), now)}` +
                tallyText(ownEntry(state.requested, call.callId)?.request.quorum)
              : 'unanswered'),
      );
    }
  }
  if (state.apiClientId !== undefined) {
    lines.push(`agent session of client: ${field('client', state.apiClientId)}`);
    for (const [approvalId, approval] of pendingApiApprovals(state)) {
      lines.push(
        `  ${field('approval', approvalId)} ${field('tool', approval.request.toolName)} ` +
          `requested_seq=${approval.requestedSeq} ` +
          `pending age=${ageOf(view.requestedAt.get(approval.requestedSeq), now)}` +
          tallyText(approval.request.quorum),
      );
    }
  }
  lines.push(
    pending.length === 0
      ? 'pending calls: none'
      : `pending calls: ${pending.map((p) => p.callId).join(', ')}`,
  );
  const projected = view.projectedPending.join(', ');
  if (projected !== pending.map((p) => p.callId).join(', ')) {
    lines.push(`! pending_approvals lists: ${projected === '' ? 'none' : projected}`);
  }
  lines.push(`queued commands: ${view.queuedCommands}`);
  lines.push(
    view.quarantined === undefined
      ? 'quarantined: no'
      : `quarantined: since ${view.quarantined.at.toISOString()}: ${JSON.stringify(view.quarantined.reason)}`,
  );
  return lines;
}

function viewJson(sessionId: string, view: SessionView, now: Date): object {
  const { state } = view;
  const turn = state.turn;
  const batch = 'batch' in turn ? turn.batch : undefined;
  return {
    sessionId,
    conversation: state.conversation ?? null,
    version: state.version,
    events: view.events,
    stateRowVersion: view.stateRow?.version ?? null,
    phase: turn.phase,
    turnSeq: 'turnSeq' in turn ? turn.turnSeq : null,
    requestedBy: state.turnMessage?.sender ?? null,
    batchId: batch?.batchId ?? null,
    calls: (batch?.gated ?? []).map((call) => {
      const decision = decisionFor(turn, call.callId);
      const at = view.requestedAt.get(call.requestedSeq);
      return {
        callId: call.callId,
        toolName: call.toolName,
        requestedSeq: call.requestedSeq,
        pending: pendingPrompts(state).some((p) => p.callId === call.callId),
        decision: decision ?? null,
        tally: tallyJson(ownEntry(state.requested, call.callId)?.request.quorum),
        requestedAt: at?.toISOString() ?? null,
        ageSeconds:
          decision === undefined && at !== undefined
            ? Math.floor((now.getTime() - at.getTime()) / 1000)
            : null,
      };
    }),
    pendingCalls: pendingPrompts(state).map((p) => p.callId),
    apiClientId: state.apiClientId ?? null,
    projectedPending: view.projectedPending,
    queuedCommands: view.queuedCommands,
    quarantined: view.quarantined ?? null,
  };
}

/** G1: how far a prompt with a quorum has got, and who approved (ids, oldest first). */
function tallyText(quorum: Quorum | undefined): string {
  if (quorum === undefined) return '';
  const by = quorum.approvals.map((a) => a.by.id).join(',');
  return ` tally=${quorum.approvals.length}/${quorum.required}${by === '' ? '' : ` approved_by=${by}`}`;
}

function tallyJson(quorum: Quorum | undefined): object | null {
  return quorum === undefined
    ? null
    : {
        required: quorum.required,
        approvals: quorum.approvals.map((a) => ({ id: a.by.id, at: a.at })),
      };
}
