import {
  type ApprovalCancel,
  type ApprovalDecided,
  type ApprovalRequest,
  type Output,
  parseApprovalDecided,
  parseOutput,
  type ToolInteractionResponse,
} from '@tollgate/protocol';
import {
  agentSessionId,
  anApprovalCancel,
  anApprovalRequest,
} from '../../../../../../libs/protocol/src/testing/approval-fixtures';
import {
  aResponse,
  anUndeliverable,
} from '../../../../../../libs/protocol/src/testing/message-fixtures';
import {
  decideApiResponse,
  decideApiUndeliverable,
  decideApprovalCancel,
} from '../api-approval.decider';
import { decidePromptTimer } from '../prompt-timer.decider';
import type { PromptTimer } from '../prompt-timer';
import type { SessionDeps } from '../session-deps';
import { requestApproval } from '../../request-approval';
import {
  type JournaledEvent,
  replay,
  type SessionEvent,
  type SessionState,
} from '@tollgate/session-read-model';
import { SessionRecorder } from '../session-recorder';
import { decideRecovery } from '../session.decider';
import { defaultDeps } from './session-given';

export { agentSessionId };

/** What one decision of an agent session recorded. */
export interface AgentDecision {
  readonly events: readonly SessionEvent[];
  readonly outputs: readonly Output[];
  readonly unjournaled: readonly Output[];
  readonly decisions: readonly ApprovalDecided[];
  readonly state: SessionState;
}

const START = Date.parse('2024-05-01T12:00:00.000Z');

/**
 * An agent session (A2) driven as the store drives it: each decision starts from a replay of the
 * journal (after a JSON round trip), and every output and decision event is checked against
 * the wire contract before a spec looks at it.
 */
export class AgentSessionGiven {
  readonly journal: JournaledEvent[] = [];
  private count = 0;

  constructor(readonly deps: SessionDeps = defaultDeps()) {}

  get state(): SessionState {
    return replay(agentSessionId, this.journal);
  }

  request(overrides: Partial<ApprovalRequest> = {}): Promise<AgentDecision> {
    const command = anApprovalRequest(overrides);
    return this.decide((r) => requestApproval(r, command, this.deps));
  }

  cancel(overrides: Partial<ApprovalCancel> = {}): Promise<AgentDecision> {
    const command = anApprovalCancel(overrides);
    return this.decide((r) => decideApprovalCancel(r, command));
  }

  respond(
    approvalId: string,
    optionKey: string,
    overrides: Partial<ToolInteractionResponse> = {},
  ): Promise<AgentDecision> {
    const command = aResponse({
      id: `click-${this.count + 1}`,
      sessionId: agentSessionId,
      callId: approvalId,
      optionKey,
      sender: { id: 'U0001', displayName: 'Ada' },
      ...overrides,
    });
    return this.decide((r) => decideApiResponse(r, command));
  }

  undeliverable(approvalId: string, reason = 'channel_not_found'): Promise<AgentDecision> {
    const command = anUndeliverable({
      id: `undeliverable-${this.count + 1}`,
      sessionId: agentSessionId,
      callId: approvalId,
      reason,
    });
    return this.decide((r) => decideApiUndeliverable(r, command));
  }

  timer(timer: PromptTimer): Promise<AgentDecision> {
    return this.decide((r) => decidePromptTimer(r, timer, `timer-${this.count + 1}`));
  }

  recover(): Promise<AgentDecision> {
    return this.decide((r) => {
      decideRecovery(r);
    });
  }

  async decide(
    decision: (recorder: SessionRecorder) => Promise<void> | void,
  ): Promise<AgentDecision> {
    this.count += 1;
    const now = new Date(START + this.count * 60_000).toISOString();
    const recorder = new SessionRecorder(replay(agentSessionId, this.journal), now);
    await decision(recorder);
    const outputs = recorder.recorded.flatMap((r) => r.outputs);
    const decisions = recorder.recorded.flatMap((r) => r.decisions ?? []);
    for (const output of [...outputs, ...recorder.unjournaledOutputs]) {
      const parsed = parseOutput(JSON.stringify(output));
      if (!parsed.ok) throw new Error(`output ${output.id}: ${parsed.reason}: ${parsed.detail}`);
    }
    for (const decided of decisions) {
      const parsed = parseApprovalDecided(JSON.stringify(decided));
      if (!parsed.ok) throw new Error(`decision ${decided.id}: ${parsed.reason}: ${parsed.detail}`);
    }
    for (const { seq, occurredAt, event } of recorder.recorded) {
      this.journal.push(JSON.parse(JSON.stringify({ seq, occurredAt, event })) as JournaledEvent);
    }
    return {
      events: recorder.recorded.map((r) => r.event),
      outputs,
      unjournaled: recorder.unjournaledOutputs,
      decisions,
      state: recorder.current,
    };
  }
}
