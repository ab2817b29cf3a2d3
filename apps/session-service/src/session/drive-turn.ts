import type { SessionDeps } from './domain/session-deps';
import type { SessionRecorder } from './domain/session-recorder';
import { decideTurn } from './domain/turn.decider';
import { continueTurn, redrive } from './domain/turn-runner';

/**
 * The shell's half of a turn: runs the effect the turn decider asks for after a decision, and
 * commits before it. Every decision that may start or resume a turn goes through here, so the
 * rule "if Redriving, commit, then redrive" lives once (decideTurn), not in each decider.
 */
export async function driveTurn(recorder: SessionRecorder, deps: SessionDeps): Promise<void> {
  const effect = decideTurn(recorder);
  if (effect === undefined) return;
  switch (effect.type) {
    case 'Redrive':
      await recorder.checkpoint(effect.commitFirst);
      return redrive(recorder, deps);
    case 'CallModel':
      return continueTurn(recorder, deps);
  }
}
