import type { SessionDeps } from './domain/session-deps';
import type { SessionRecorder } from './domain/session-recorder';
import { decideTurn } from './domain/turn.decider';
import type { TurnEffect, TurnInput } from './domain/turn-effects';
import { HistoryUnrestorable } from './domain/provider-history';
import { sessionTools } from './domain/sub-agent.runner';
import { performReadGrant } from './read-grant';

/**
 * The shell's half of a turn (D1): after a decision, asks the turn decider what the turn needs,
 * commits what was decided when the effect names a commit point, runs the effect, and feeds its
 * result back, until the decider asks for nothing (the turn ended or parked). Every decision
 * that may start or resume a turn goes through here; no domain code waits on I/O.
 */
export async function driveTurn(recorder: SessionRecorder, deps: SessionDeps): Promise<void> {
  let effect = decideTurn(recorder, deps);
  while (effect !== undefined) {
    if ('commitFirst' in effect && effect.commitFirst) await recorder.commit(effect.commitFirst);
    effect = decideTurn(recorder, deps, await perform(effect, recorder, deps));
  }
}

/** Runs one effect; its failures the decider must see come back as inputs, not throws. */
async function perform(
  effect: TurnEffect,
  recorder: SessionRecorder,
  deps: SessionDeps,
): Promise<TurnInput> {
  switch (effect.type) {
    case 'ReadHistory':
      try {
        return {
          type: 'HistoryRead',
          effect,
          messages: await recorder.history(effect.throughSeq),
        };
      } catch (error) {
        if (!(error instanceof HistoryUnrestorable)) throw error;
        return { type: 'HistoryUnrestorable', effect, reason: error.message };
      }
    case 'CallModel':
      try {
        return { type: 'ModelReplied', effect, reply: await deps.model.complete(effect.request) };
      } catch (error) {
        return { type: 'ModelFailed', effect, reason: messageOf(error) };
      }
    case 'ReadGrant':
      return {
        type: 'GrantRead',
        effect,
        found: await performReadGrant(effect, deps.grants, recorder),
      };
    case 'TakeGrantUse':
      return {
        type: 'GrantUseTaken',
        effect,
        usesLeft: await recorder.claimGrantUse(effect.claim),
      };
    case 'RunTool': {
      const tool = sessionTools(recorder, deps).get(effect.call.toolName);
      try {
        if (!tool) throw new Error('unknown tool');
        if (!effect.arguments) throw new Error('arguments are not a JSON object');
        const outcome = await tool.run(effect.arguments, { noteCount: effect.noteCount });
        return { type: 'ToolRan', effect, outcome };
      } catch (error) {
        return { type: 'ToolFailed', effect, message: messageOf(error) };
      }
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
