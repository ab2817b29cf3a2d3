import { isAgentSessionId } from '@tollgate/protocol';
import {
  decideApiResponse,
  decideApiUndeliverable,
  decideApprovalCancel,
} from '../session/domain/api-approval.decider';
import { requestApproval } from '../session/request-approval';
import type { SessionDeps } from '../session/domain/session-deps';
import { decideJoin, decideResponse, decideUserMessage } from '../session/domain/session.decider';
import { failTurnInFlight } from '../session/domain/turn-endings';
import type { DecideOptions, DecisionResult, SessionStore } from '../journal/session-store';
import { decideUndeliverable } from '../session/domain/undeliverable.decider';
import { decidePromptShown } from '../session/domain/prompt-shown.decider';
import type { SessionCommand } from '../session/domain/sub-agent';
import type { SessionRecorder } from '../session/domain/session-recorder';
import { driveTurn } from '../session/drive-turn';
import {
  decideSubAgentAbandon,
  decideSubAgentResult,
  decideSubAgentTask,
} from '../session/domain/sub-agent.decider';

/**
 * One command, one decision: short transactions around the turn's I/O, the first of them
 * with the command ledger; a repeated command id changes nothing.
 */
export class HandleCommand {
  constructor(
    private readonly store: SessionStore,
    private readonly deps: SessionDeps,
  ) {}

  async execute(command: SessionCommand, options: DecideOptions = {}): Promise<DecisionResult> {
    return this.store.decide(
      command.sessionId,
      command.id,
      async (recorder) => {
        await this.decideCommand(recorder, command);
        // Whatever the command was, a turn it started or resumed goes on here (decideTurn).
        await driveTurn(recorder, this.deps);
      },
      { ...options, ...callOf(command) },
    );
  }

  private async decideCommand(recorder: SessionRecorder, command: SessionCommand): Promise<void> {
    switch (command.type) {
      case 'UserMessage':
        return decideUserMessage(recorder, command);
      // An agent session's prompts are API approvals: no turn, no model, no tool (A2).
      case 'ToolInteractionResponse':
        return isAgentSessionId(command.sessionId)
          ? decideApiResponse(recorder, command)
          : decideResponse(recorder, command);
      case 'JoinSession':
        return decideJoin(recorder, command);
      case 'ToolInteractionUndeliverable':
        return isAgentSessionId(command.sessionId)
          ? decideApiUndeliverable(recorder, command)
          : decideUndeliverable(recorder, command);
      case 'ToolInteractionShown':
        return decidePromptShown(recorder, command);
      case 'ApprovalRequest':
        return requestApproval(recorder, command, this.deps);
      case 'ApprovalCancel':
        return decideApprovalCancel(recorder, command);
      case 'SubAgentTask':
        return decideSubAgentTask(recorder, command);
      case 'SubAgentResult':
        return decideSubAgentResult(recorder, command);
      case 'SubAgentAbandon':
        return decideSubAgentAbandon(recorder, command);
    }
  }

  /**
   * A decision failed after a checkpoint for a reason retrying cannot cure (a write
   * PostgreSQL refuses every time): left Running, the session would refuse every later
   * message, so the turn ends with a notice instead of being resumed.
   */
  async failInFlight(sessionId: string, options: DecideOptions = {}): Promise<DecisionResult> {
    return this.store.decide(
      sessionId,
      undefined,
      (recorder) => {
        failTurnInFlight(recorder);
      },
      options,
    );
  }
}

/** The call whose settled state the decision needs loaded (a late click, a repeated approval). */
function callOf(command: SessionCommand): { callId?: string } {
  switch (command.type) {
    case 'ToolInteractionResponse':
    case 'ToolInteractionShown':
      return { callId: command.callId };
    case 'ApprovalRequest':
    case 'ApprovalCancel':
      return { callId: command.approvalId };
    default:
      return {};
  }
}
