import type { Command } from '@tollgate/protocol';
import type { SessionDeps } from '../session/domain/session-deps';
import { decideJoin, decideResponse, decideUserMessage } from '../session/domain/session.decider';
import { failTurnInFlight } from '../session/domain/turn-runner';
import { decideUndeliverable } from '../session/domain/undeliverable.decider';
import {
  type DecisionResult,
  PartiallyCommittedDecision,
  type SessionStore,
} from '../journal/session-store';

/** One command, one decision, one transaction; a repeated command id changes nothing. */
export class HandleCommand {
  constructor(
    private readonly store: SessionStore,
    private readonly deps: SessionDeps,
  ) {}

  async execute(command: Command): Promise<DecisionResult> {
    try {
      return await this.store.decide(command.sessionId, command.id, async (recorder) => {
        switch (command.type) {
          case 'UserMessage':
            return decideUserMessage(recorder, command, this.deps);
          case 'ToolInteractionResponse':
            return decideResponse(recorder, command, this.deps);
          case 'JoinSession':
            return decideJoin(recorder, command);
          case 'ToolInteractionUndeliverable':
            return decideUndeliverable(recorder, command, this.deps);
        }
      });
    } catch (error) {
      if (error instanceof PartiallyCommittedDecision) await this.settleFailedTurn(error);
      throw error;
    }
  }

  /**
   * Left Running, the session would refuse every later message until a restart recovered it.
   * If this fails too (the database is away), decideUserMessage settles the turn before the
   * next message, and a restart's recovery does as well.
   */
  private async settleFailedTurn(failure: PartiallyCommittedDecision): Promise<void> {
    try {
      await this.store.decide(failure.sessionId, undefined, (recorder) => {
        failTurnInFlight(recorder);
      });
      failure.turnSettled = true;
    } catch {
      failure.turnSettled = false;
    }
  }
}
