import type { SessionDeps } from '../session/domain/session-deps';
import { decideJoin, decideResponse, decideUserMessage } from '../session/domain/session.decider';
import { failTurnInFlight } from '../session/domain/turn-runner';
import type { DecideOptions, DecisionResult, SessionStore } from '../journal/session-store';
import { decideUndeliverable } from '../session/domain/undeliverable.decider';
import type { SessionCommand } from '../session/domain/sub-agent';
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
        switch (command.type) {
          case 'UserMessage':
            return decideUserMessage(recorder, command, this.deps);
          case 'ToolInteractionResponse':
            return decideResponse(recorder, command, this.deps);
          case 'JoinSession':
            return decideJoin(recorder, command);
          case 'ToolInteractionUndeliverable':
            return decideUndeliverable(recorder, command, this.deps);
          case 'SubAgentTask':
            return decideSubAgentTask(recorder, command, this.deps);
          case 'SubAgentResult':
            return decideSubAgentResult(recorder, command, this.deps);
          case 'SubAgentAbandon':
            return decideSubAgentAbandon(recorder, command);
        }
      },
      command.type === 'ToolInteractionResponse' ? { ...options, callId: command.callId } : options,
    );
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
